"""Reference for vLLM's allspark_w8a16_gemm (torch.ops._C.allspark_w8a16_gemm;
csrc/quantization/gptq_allspark/allspark_qgemm_w8a16.cu): our own torch code, run by the worker
on the native inputs ("reference_precision": "native": the weight is dequantized in the
activation dtype, as vLLM does, so the float64 copies would lose that rounding).

The op is AllSpark's W8A16 GEMM for Ampere: C = A @ W, where A is [M, K] float16/bfloat16 and W
[K, N] is an 8-bit per-channel quantized weight stored in AllSpark's "N32K16" byte order (the
output of vLLM's rearrange_kn_weight_as_n32k16_order / allspark_repack_weight).

Layout (N32 = N rounded up to a multiple of 32; b_qweight is uint8 [N32, K], read as its flat
bytes; b_scales and b_qzeros are [1, N32]): for a weight element W[k, n], with
G = n // 32, r = n % 32, kg = k // 16, j = k % 16, its byte q[k, n] is at flat position

    (G * 8 + r % 8) * 4K + kg * 64 + ((j % 8) // 2) * 16 + (r // 8) * 4 + 2 * (j // 8) + j % 2

(each 32 (n) x 16 (k) tile is 512 bytes spread over 8 rows of 64 bytes, row stride 4K bytes,
in the order of the operands of the m16n8k16 tensor-core instruction), and its scale and zero
point are at position G * 32 + (r % 8) * 4 + r // 8 of b_scales / b_qzeros. Bytes and scales of
the padding columns n >= N (N32 - N of them) are never read.

Dequantization, in the activation dtype T as vLLM's kernel (and its cuBLAS path) does:
  d = q - 128                              (exact)
  d = T(d - zero[n])   when b_qzeros is given (exact for the integer zero points of the cases)
  w = T(d * scale[n])                      (one rounding of the exact product)
and C[m, n] = T(sum_k A[m, k] * w[k, n]) with a float32 (here float64) accumulation; the result
is a new [M, N] tensor of A's dtype. vLLM applies the zero points whenever b_qzeros is given
(its has_zp flag only guards the checks); the cases pass has_zp = (b_qzeros is not None).
group_size must be -1 (per-channel scales: vLLM's kernel rejects anything else);
sm_count, sm_version, CUBLAS_M_THRESHOLD and n32k16_reorder only pick vLLM's kernel and tiling
(M > CUBLAS_M_THRESHOLD: dequantize then cuBLAS; otherwise the fused split-K kernel), never the
result.

Tolerance: reduce = K with scale max(1, sqrt(K) / 4), as for matrix products: the candidate may
accumulate in float32 in any order; the dequantized weights must be the T values above.
"""

import torch


def _unpack_index(n: int, k: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(flat byte position [n, k] of W[k, n] for every column, scale position [n])."""
    nn = torch.arange(n, device=device, dtype=torch.int64)
    kk = torch.arange(k, device=device, dtype=torch.int64)
    g, r = nn // 32, nn % 32
    kg, j = kk // 16, kk % 16
    row = g * 8 + r % 8
    col_n = (r // 8) * 4
    col_k = kg * 64 + ((j % 8) // 2) * 16 + 2 * (j // 8) + j % 2
    flat = row[:, None] * (4 * k) + col_n[:, None] + col_k[None, :]
    spos = g * 32 + (r % 8) * 4 + r // 8
    return flat, spos


def allspark_w8a16_gemm(a: torch.Tensor, b_qweight: torch.Tensor, b_scales: torch.Tensor,
                        b_qzeros: torch.Tensor | None, n: int, group_size: int, sm_count: int,
                        sm_version: int, CUBLAS_M_THRESHOLD: int, has_zp: bool,
                        n32k16_reorder: bool) -> torch.Tensor:
    if a.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError("allspark_w8a16_gemm: a must be float16 or bfloat16")
    if group_size != -1:
        raise ValueError("allspark_w8a16_gemm: only group_size = -1 (per channel) is supported")
    m, k = a.shape
    n32 = (n + 31) // 32 * 32
    if tuple(b_qweight.shape) != (n32, k) or b_qweight.dtype != torch.uint8:
        raise ValueError("allspark_w8a16_gemm: b_qweight must be uint8 [N32, K]")
    if k % 16 != 0 or n % 8 != 0:
        raise ValueError("allspark_w8a16_gemm: K must be a multiple of 16 and n of 8")
    flat, spos = _unpack_index(n, k, a.device)
    q = b_qweight.reshape(-1)[flat].t()                     # [K, N] uint8
    scale = b_scales.reshape(-1)[spos].to(torch.float32)    # [N]
    d = q.to(torch.float32) - 128.0
    if b_qzeros is not None:
        zero = b_qzeros.reshape(-1)[spos].to(torch.float32)
        d = (d - zero).to(a.dtype).to(torch.float32)
    w = (d * scale).to(a.dtype)                             # the kernel's dequantized weight
    return (a.to(torch.float64) @ w.to(torch.float64)).to(a.dtype)
