"""Reference for vLLM's ggml_dequantize (torch.ops._C.ggml_dequantize; csrc/quantization/gguf/
gguf_kernel.cu: ggml_dequantize; dequantize.cuh: dequantize_q4_0, dequantize_q8_0,
dequantize_block, dequantize_block_q4_K, get_scale_min_k4, ggml_get_to_cuda; block layouts of
ggml-common.h): our own torch code, run by the worker on the native inputs.

W holds raw GGUF blocks (uint8 bytes, read from the start of W's memory, contiguous). The result
is a new [m, n] tensor of `dtype` (None means float16) holding the first m * n dequantized
values, in block order: value e is value e % QK of block e // QK. Covered types (GGML's numbers):

- 2, Q4_0: 18-byte blocks of 32 values: fp16 d, then 16 bytes qs; value j < 16 is the low
  nibble of qs[j], value 16 + j its high nibble; w = (nibble - 8) * d.
- 8, Q8_0: 34-byte blocks of 32 values: fp16 d, then 32 int8 q; w = q * d.
- 12, Q4_K: 144-byte super-blocks of 256 values: fp16 d, fp16 dmin, 12 bytes of packed 6-bit
  scales and mins, 128 bytes qs. Value j: group g = j // 64, r = j % 64; nibble = low nibble of
  qs[32 g + r] (r < 32, sub-block s = 2 g) or high nibble of qs[32 g + r - 32] (s = 2 g + 1);
  (sc, mn) = scale and min of sub-block s (get_scale_min_k4); w = d1 * nibble - m1 with
  d1 = d * sc, m1 = dmin * mn.

Arithmetic: vLLM's kernels compute in half precision: each product, difference and sum above is
rounded to float16 (round to nearest even) as it is formed (Q4_K: d1, m1, d1 * nibble and the
difference each rounded), and the float16 value is then converted to the output dtype (exact for
float32 and float16, one more rounding for bfloat16). The reference does each operation exactly
in float32 (every operand is a float16 or a small integer: the products are exact, and a
difference whose float32 rounding is inexact lies within a quarter float16 ulp of one operand,
so the float16 rounding gives the same result) and rounds to float16 where vLLM does.

Tolerance: the float16 intermediate values make the result exact up to the output dtype's
rounding; the default tolerance of the output dtype is used.
"""

import torch

# type -> (values per block, bytes per block)
_BLOCK = {2: (32, 18), 8: (32, 34), 12: (256, 144)}


def _half(b: torch.Tensor) -> torch.Tensor:
    """[N, 2] uint8 (little-endian) -> [N] float32 value of the float16 bit pattern."""
    return b.contiguous().view(torch.float16).reshape(-1).to(torch.float32)


def _r16(x: torch.Tensor) -> torch.Tensor:
    """Round float32 to float16 (nearest even), as a float32 tensor."""
    return x.to(torch.float16).to(torch.float32)


def _q4_k_scales(sc: torch.Tensor):
    """[N, 12] uint8 -> (scales, mins), each [N, 8] int64 (get_scale_min_k4)."""
    q = sc.to(torch.int64)
    scales, mins = [], []
    for j in range(8):
        if j < 4:
            scales.append(q[:, j] & 63)
            mins.append(q[:, j + 4] & 63)
        else:
            scales.append((q[:, j + 4] & 0xF) | ((q[:, j - 4] >> 6) << 4))
            mins.append((q[:, j + 4] >> 4) | ((q[:, j] >> 6) << 4))
    return torch.stack(scales, 1), torch.stack(mins, 1)


def ggml_dequantize(W: torch.Tensor, type: int, m: int, n: int,
                    dtype: torch.dtype | None) -> torch.Tensor:
    if type not in _BLOCK:
        raise ValueError(f"ggml_dequantize: GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    total = m * n
    if total % qk != 0:
        raise ValueError(f"ggml_dequantize: m * n = {total} is not a multiple of {qk}")
    nb = total // qk
    raw = W.contiguous().reshape(-1)[: nb * bs].reshape(nb, bs)
    if type == 8:
        d = _half(raw[:, 0:2])
        q = raw[:, 2:].view(torch.int8).to(torch.float32)
        y = _r16(q * d[:, None])
    elif type == 2:
        d = _half(raw[:, 0:2])
        qs = raw[:, 2:].to(torch.int64)
        nib = torch.cat([qs & 0xF, qs >> 4], dim=1).to(torch.float32)  # [nb, 32]
        y = _r16((nib - 8.0) * d[:, None])
    else:
        d = _half(raw[:, 0:2])
        dmin = _half(raw[:, 2:4])
        scales, mins = _q4_k_scales(raw[:, 4:16])
        qs = raw[:, 16:].to(torch.int64).reshape(nb, 4, 32)
        nib = torch.stack([qs & 0xF, qs >> 4], dim=2).reshape(nb, 8, 32).to(torch.float32)
        d1 = _r16(d[:, None] * scales.to(torch.float32))  # [nb, 8]
        m1 = _r16(dmin[:, None] * mins.to(torch.float32))
        y = _r16(_r16(d1[:, :, None] * nib) - m1[:, :, None]).reshape(nb, 256)
    out = y.to(torch.float16)
    return out.reshape(m, n).to(torch.float16 if dtype is None else dtype)
