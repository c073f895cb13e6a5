"""Reference for aten::rsqrt: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

rsqrt(x) = 1 / sqrt(x) elementwise, with the shape of the input; a floating input keeps its
dtype, an integer input gives float32 (its reference is torch's float32 result, which is within
an ulp of the exact value). Special values follow IEEE: x < 0 and NaN give NaN, +0 gives inf,
-0 gives -inf, inf gives 0. No reduction, so the tolerance is the plain elementwise one; the
float64 reference is exact for the input's (rounded) value. rsqrt.out writes `out`, rsqrt_
writes `self`; both return the tensor written.
"""

import torch


def rsqrt(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.rsqrt.default(self)


def rsqrt_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.rsqrt.out(self, out=out)


def rsqrt_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.rsqrt_.default(self)
