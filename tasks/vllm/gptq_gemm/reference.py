"""Reference for vLLM's gptq_gemm (torch.ops._C.gptq_gemm; csrc/quantization/gptq/q_gemm.cu:
gptq_gemm, gemm_half_q_half_cuda and the kernels it chooses from -- gemm_half_q_half_gptq_*bit,
reconstruct_exllama_*bit for use_exllama, gemm_half_q_half_alt_*bit and reconstruct_gptq for
the plain layout -- with the word orders of qdq_{2,3,4,8}.cuh and the zero-point views of
matrix_view.cuh): our own torch code, run by the worker on float64 copies of the floating inputs
(values) and on the native inputs (structure and the GPU baseline).

gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama, use_v2_format, bit)
returns out = a @ W, float16 [M, N], for a float16 [M, K] and a GPTQ weight W [K, N] of `bit`
bits (2, 3, 4 or 8) per value:

- b_q_weight int32 [K * bit / 32, N]: q[k, n] packed along k (each column n its own words).
  Plain GPTQ layout (use_exllama false): for bit 2, 4, 8 value k is at bits
  [(k % v) * bit, ...) of word row k // v (v = 32 / bit); for bit 3 three word rows form a
  96-bit group of 32 values, value k at bits 3 (k % 32) of group k // 32 (values 10 and 21
  straddle two words). ExLlama layout (use_exllama true): the layout gptq_shuffle produces
  from the plain one; within each word the even-indexed values fill the low 16 bits and the
  odd-indexed ones the high 16 bits (bit 2, 4), bit 8 is unchanged, and bit 3 spreads each
  group as described in _exllama_values.
- b_gptq_qzeros int32 [groups, N * bit / 32]: the zero points z[g, n], packed along n in the
  plain order (value n at bits (n % v) * bit of word n // v; for bit 3 the 96-bit groups of 32
  columns). groups = b_gptq_qzeros.size(0).
- b_gptq_scales float16 [groups, N]: s[g, n].
- The zero point used is z + 1 for GPTQ v1 checkpoints (use_v2_format false) and z for v2.
- Row k's group and the activation column it multiplies:
  use_exllama true: group k // (K / groups); b_g_idx is either empty (column k) or a
  permutation q_perm of 0..K-1 (vLLM passes argsort(g_idx) and has applied it to the rows of
  b_q_weight with gptq_shuffle): row k multiplies column q_perm[k] of a.
  use_exllama false: b_g_idx [K] gives row k's group, g_idx[k]; row k multiplies column k.

W[k, n] = (q[k, n] - zero[g, n]) * s[g, n]; out[m, n] = sum_k a[m, col(k)] * W[k, n].

The weight is dequantized in float32 (float64 on the float64 copies) and the product formed in
that precision, rounded once to float16. The task's tolerance also admits rounding each
dequantized weight to float16 before a float32-accumulated product (vLLM forms (q - z) * s in
half precision; some of its kernels also accumulate in half precision, which the tolerance does
not admit).
"""

import torch

_M32 = 0xFFFFFFFF


def _plain_values(w: torch.Tensor, bit: int) -> torch.Tensor:
    """int32 [R, C] packed along dim 0 in the plain order -> int64 [R * 32 / bit, C] values."""
    w = w.to(torch.int64) & _M32
    R, C = w.shape
    if bit == 3:
        g = w.reshape(R // 3, 3, C)
        vals = []
        for j in range(32):
            wi, s = (3 * j) // 32, (3 * j) % 32
            v = g[:, wi] >> s
            if s > 29:
                v = v | (g[:, wi + 1] << (32 - s))
            vals.append(v & 7)
        return torch.stack(vals, dim=1).reshape(R // 3 * 32, C)
    per = 32 // bit
    vals = [(w >> (j * bit)) & ((1 << bit) - 1) for j in range(per)]
    return torch.stack(vals, dim=1).reshape(R * per, C)


def _exllama_values(w: torch.Tensor, bit: int) -> torch.Tensor:
    """int32 [R, C] in ExLlama's order (gptq_shuffle's output) -> int64 [K, C] values."""
    if bit == 8:
        return _plain_values(w, bit)
    w = w.to(torch.int64) & _M32
    R, C = w.shape
    if bit == 3:
        # Word i (0, 1, 2) of a group holds values 10 i + t, t < 10, at bits 3 (t // 2) (even t)
        # or 16 + 3 (t // 2) (odd t); bit i of value 30 is bit 15 of word i, bit i of value 31
        # is bit 31 of word i.
        g = w.reshape(R // 3, 3, C)
        vals = []
        for j in range(32):
            if j < 30:
                i, t = j // 10, j % 10
                vals.append((g[:, i] >> (3 * (t // 2) + 16 * (t % 2))) & 7)
            else:
                b = 15 + 16 * (j - 30)
                vals.append(((g[:, 0] >> b) & 1) | (((g[:, 1] >> b) & 1) << 1)
                            | (((g[:, 2] >> b) & 1) << 2))
        return torch.stack(vals, dim=1).reshape(R // 3 * 32, C)
    per = 32 // bit
    half = per // 2
    vals = []
    for j in range(per):
        slot = j // 2 + (j % 2) * half
        vals.append((w >> (slot * bit)) & ((1 << bit) - 1))
    return torch.stack(vals, dim=1).reshape(R * per, C)


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama,
              use_v2_format, bit):
    if bit not in (2, 3, 4, 8):
        raise ValueError(f"gptq_gemm: bit {bit} is not 2, 3, 4 or 8")
    M, K = a.shape
    groups = b_gptq_qzeros.shape[0]
    dt = torch.float64 if a.dtype == torch.float64 else torch.float32
    if use_exllama:
        q = _exllama_values(b_q_weight, bit)
    else:
        q = _plain_values(b_q_weight, bit)
    z = _plain_values(b_gptq_qzeros.t(), bit).t()  # [groups, N]
    if not use_v2_format:
        z = z + 1
    if use_exllama:
        grp = torch.arange(K, device=a.device) // (K // groups)
        cols = b_g_idx.long() if b_g_idx.numel() > 0 else None
    else:
        grp = b_g_idx.long()
        cols = None
    w = (q - z[grp]).to(dt) * b_gptq_scales.to(dt)[grp]
    x = a.to(dt)
    if cols is not None:
        x = x[:, cols]
    return (x @ w).to(a.dtype)
