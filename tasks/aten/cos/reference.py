"""Reference for aten::cos: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

cos(x) elementwise, argument in radians, with the shape of the input; a floating input keeps its
dtype, an integer input gives float32 (its reference is torch's float32 result, within an ulp of
the exact value). +-inf and NaN give NaN. No reduction, so the tolerance is the plain
elementwise one; the float64 reference is exact for the input's (rounded) value, so inputs of
large magnitude test the argument reduction. cos.out writes `out`, cos_ writes `self`; both
return the tensor written.
"""

import torch


def cos(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.cos.default(self)


def cos_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.cos.out(self, out=out)


def cos_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.cos_.default(self)
