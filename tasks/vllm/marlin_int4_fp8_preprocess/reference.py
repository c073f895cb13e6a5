"""Reference for vLLM's marlin_int4_fp8_preprocess (torch.ops._C.marlin_int4_fp8_preprocess,
wrapper vllm/_custom_ops.py::marlin_int4_fp8_preprocess; kernels
marlin_int4_fp8_preprocess_kernel_without_zp and marlin_int4_fp8_preprocess_kernel_awq in
csrc/quantization/gptq_marlin/marlin_int4_fp8_preprocess.cu): our own torch code.

The op re-encodes every 4-bit weight value of a packed int32 weight for Marlin's W4A8-FP8 path.
Each word holds 8 nibbles (nibble i at bits [4 i, 4 i + 4), words read as unsigned 32-bit
patterns); every nibble v is replaced, in place of itself, by

- without zero points (GPTQ-style uint4b8, qzeros None): v - 8 when v >= 8, else 15 - v;
- with zero points (AWQ; qweight [K, N / 8], qzeros [K / G, N / 8] with group size
  G = K / qzeros.size(0)): with z the nibble at the same position of word qzeros[k // G, c],
  v - z when v >= z, else 15 - v.

With inplace the result is written into qweight and qweight itself is returned; otherwise a new
tensor of qweight's shape is returned and qweight is left unchanged. vLLM requires
numel(qweight) to be a multiple of 32 without zero points, and K % 32 == 0, G % 8 == 0 and
qzeros.size(1) == qweight.size(1) with them; tensors are contiguous (vLLM indexes raw pointers).

Tolerance: integers, compared exactly.
"""

import torch

def marlin_int4_fp8_preprocess(qweight: torch.Tensor, qzeros_or_none=None,
                               inplace: bool = False) -> torch.Tensor:
    if qzeros_or_none is None:
        if qweight.numel() % 32:
            raise ValueError("qweight.numel() must be a multiple of 32")
        zeros = None
    else:
        K, C = qweight.shape
        qz = qzeros_or_none
        if qz.shape[1] != C or K % qz.shape[0] or K % 32 or (K // qz.shape[0]) % 8:
            raise ValueError("qzeros must be [K / G, N / 8] with K % 32 == 0 and G % 8 == 0")
        zeros = qz.repeat_interleave(K // qz.shape[0], dim=0)  # row k uses qzeros[k // G]
    words = torch.zeros(qweight.shape, dtype=torch.int64, device=qweight.device)
    for i in range(8):  # nibble i of every word; int32 shifts are arithmetic, the mask fixes it
        v = (qweight >> (4 * i)) & 0xF
        z = 8 if zeros is None else (zeros >> (4 * i)) & 0xF
        words |= torch.where(v >= z, v - z, 15 - v).to(torch.int64) << (4 * i)
    out = ((words ^ 0x80000000) - 0x80000000).to(torch.int32)  # uint32 pattern -> int32
    if inplace:
        qweight.copy_(out)
        return qweight
    return out
