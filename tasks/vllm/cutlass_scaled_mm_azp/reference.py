"""Reference for vLLM's cutlass_scaled_mm_azp, int8 path (torch.ops._C.cutlass_scaled_mm_azp;
csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu and the ScaledEpilogueBiasAzp /
ScaledEpilogueBiasAzpToken epilogues of csrc/cutlass_extensions/epilogue/
scaled_mm_epilogues_c3x.hpp): our own torch code, run by the worker on float64 copies (values)
and on the native inputs (structure and the GPU baseline).

cutlass_scaled_mm_azp(out, a, b, a_scales, b_scales, azp_adj, azp, bias) is the matrix product
of asymmetrically quantised activations: with acc = a @ b (int8 [M, K] times int8 [K, N], exact
in int32), the zero-point correction is c[m, n] = azp_adj[n] when azp is None (per-tensor zero
point, already folded into azp_adj) and c[m, n] = azp[m] * azp_adj[n] otherwise (per-token
zero points, azp_adj the column sums of b); then
out[m, n] = a_scales[m or 0] * (b_scales[n or 0] * (acc[m, n] - c[m, n])) + bias[n].
a_scales is [M, 1] or [1, 1], b_scales [1, N] or [1, 1] (float32); azp_adj is int32 [1, N],
azp int32 [M, 1] or None, bias [N] of the output dtype or None; out [M, N] is float16 or
bfloat16. It returns nothing and writes every element of out.

The integer part is formed in float64: every intermediate is an integer below 2**53, so it is
exact, as the int32 arithmetic of the op is. The scaling is done in float64 and rounded once
into out, against which the task's tolerance admits the op's float32 epilogue (a few float32
roundings) and the one rounding to float16 or bfloat16.
"""

import torch


def cutlass_scaled_mm_azp(out, a, b, a_scales, b_scales, azp_adj, azp=None, bias=None) -> None:
    acc = a.to(torch.float64) @ b.to(torch.float64)
    corr = azp_adj.to(torch.float64).reshape(1, -1)
    if azp is not None:
        corr = azp.to(torch.float64).reshape(-1, 1) * corr
    res = a_scales.to(torch.float64) * (b_scales.to(torch.float64) * (acc - corr))
    if bias is not None:
        res = res + bias.to(torch.float64)
    out.copy_(res)
