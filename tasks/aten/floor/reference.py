"""Reference for aten::floor: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

floor(x) is the largest integral value not above x, elementwise, with the shape and dtype of the
input. The result is exact in every dtype (the integral value below a float16, bfloat16 or
float32 number is representable in that type; float64 computes the same value), so the float64
reference rounds back to exactly what torch computes natively and the tolerance is never used
in practice. NaN, +-inf and -0.0 are returned unchanged. Integer inputs are returned unchanged
and compared exactly. floor.out writes `out`, floor_ writes `self`; both return the tensor
written.
"""

import torch


def floor(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.floor.default(self)


def floor_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.floor.out(self, out=out)


def floor_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.floor_.default(self)
