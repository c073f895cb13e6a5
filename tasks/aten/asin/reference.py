"""Reference for aten::asin: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

asin(x) elementwise, in radians within [-pi/2, pi/2], with the shape of the input; a floating
input keeps its dtype, an integer input gives float32 (its reference is torch's float32
result). Outside [-1, 1], for +-inf and for NaN the result is NaN, required at the same
positions. No reduction, so the tolerance is the plain elementwise one against the float64
value for the input's (rounded) value; near |x| = 1 asin is steep (its derivative is
1/sqrt(1 - x^2)), but the input is exact, so an accurate kernel still needs only a few ulp
there. asin.out writes `out`, asin_ writes `self`; both return the tensor written.
"""

import torch


def asin(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.asin.default(self)


def asin_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.asin.out(self, out=out)


def asin_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.asin_.default(self)
