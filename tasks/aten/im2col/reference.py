"""Reference for aten::im2col: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

out[n, (c * kh + i) * kw + j, oy * out_w + ox] = input[n, c, oy*sh - ph + i*dh, ox*sw - pw + j*dw]
(0 in the zero padding). A 3-D input (C, H, W) gives a 2-D result (C * kh * kw, L).

im2col.out is only given contiguous `out` tensors (possibly at a storage offset): ATen's CPU
kernel fills `out` as if it were contiguous whatever its strides, so a transposed `out` would make
the reference itself wrong. Nor is it given an unbatched (3-D) input: there ATen's CUDA kernel
leaves `out` at [1, C * kh * kw, L] where the CPU kernel gives [C * kh * kw, L] (seen on the H200,
bench/results/h200-2026-12-03), so the reference would differ by device; the functional overload
covers unbatched inputs.

Tolerance: the values are copies, so both entries scale the adaptive tolerance by 1e-6 (the format
requires positive multipliers), which makes the comparison exact in effect.
"""

import torch


def im2col(self: torch.Tensor, kernel_size, dilation, padding, stride) -> torch.Tensor:
    return torch.ops.aten.im2col(self, kernel_size, dilation, padding, stride)


def im2col_out(self: torch.Tensor, kernel_size, dilation, padding, stride, *,
               out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.im2col.out(self, kernel_size, dilation, padding, stride, out=out)
