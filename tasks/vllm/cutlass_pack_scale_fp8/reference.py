"""Reference for vLLM's cutlass_pack_scale_fp8 (torch.ops._C.cutlass_pack_scale_fp8, the CUTLASS
W4A8 group-scale preprocessing; csrc/quantization/cutlass_w4a8/w4a8_mm_entry.cu: pack_scale_fp8,
which calls cutlass::pack_scale_fp8 (vLLM's cutlass_w4a8_utils, after CUTLASS's
mixed_dtype_utils.hpp) on the host; packed_scale_t<float_e4m3_t>): our own torch code.

The W4A8 GEMM multiplies int4 weights (-8 .. 7) by their fp8 group scale through a lookup table:
for every scale s (float8_e4m3fn) the op stores the 8 products of s with the negative int4
values, each rounded to float8_e4m3fn:

    out[8 * i + j] = fp8(float(s[i]) * -(8 - j))   for j = 0 .. 6   (-8 s, -7 s, ..., -2 s)
    out[8 * i + 7] = -s[i]                          (an exact negation)

i runs over the scales in storage order (the input is contiguous, any shape); the result is a
new 1-d float8_e4m3fn tensor of 8 * scales.numel() elements. fp8() is CUTLASS's float ->
float_e4m3_t conversion: round to nearest, ties to even, saturating to +-448 (satfinite). The
products of an fp8 value with a small integer are exact in float32, so each element is one
rounding, and -s[i] = fp8(s[i] * -1).
"""

import torch

FP8_MAX = 448.0


def cutlass_pack_scale_fp8(scales: torch.Tensor) -> torch.Tensor:
    if scales.dtype not in (torch.float8_e4m3fn, torch.float64, torch.float32):
        raise ValueError("scales must be float8_e4m3fn")
    v = scales.reshape(-1).to(torch.float32)
    mult = torch.tensor([-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0],
                        dtype=torch.float32, device=scales.device)
    prod = (v[:, None] * mult[None, :]).clamp(-FP8_MAX, FP8_MAX)
    return prod.to(torch.float8_e4m3fn).reshape(-1)
