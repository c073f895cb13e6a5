"""Reference for vLLM's cutlass_scaled_mm, int8 path (torch.ops._C.cutlass_scaled_mm;
csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu and the ScaledEpilogue / ScaledEpilogueBias
epilogues of csrc/cutlass_extensions/epilogue/scaled_mm_epilogues_c3x.hpp): our own torch code,
run by the worker on float64 copies (values) and on the native inputs (structure and the GPU
baseline).

cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias) writes
out[m, n] = a_scales[m or 0] * (b_scales[n or 0] * (sum over k of a[m, k] * b[k, n])) + bias[n]
for int8 a [M, K] and b [K, N]; a_scales is [M, 1] (per token) or [1, 1] (per tensor),
b_scales [1, N] (per channel) or [1, 1], both float32; bias [N] (or None) and out [M, N] have
the output dtype (float16 or bfloat16). It returns nothing and writes every element of out.

The product is formed in float64 from the int8 values: every partial sum is an integer below
2**53, so it equals the exact int32 accumulation. The scaling is then done in float64 and
rounded once into out (on the float64 copies: no rounding at all), against which the task's
tolerance admits the float32 epilogue of the op (a few float32 roundings) and the one rounding
to float16 or bfloat16.
"""

import torch


def cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias=None) -> None:
    acc = a.to(torch.float64) @ b.to(torch.float64)
    res = a_scales.to(torch.float64) * (b_scales.to(torch.float64) * acc)
    if bias is not None:
        res = res + bias.to(torch.float64)
    out.copy_(res)
