"""Reference for aten::acosh: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

acosh(x) = log(x + sqrt(x^2 - 1)) elementwise, defined for x >= 1 (acosh(1) = 0, acosh(inf) =
inf); x < 1 (including -inf) and NaN give NaN, required at the same positions. A floating input
keeps its dtype, an integer input gives float32 (its reference is torch's float32 result). No
reduction, so the tolerance is the plain elementwise one against the float64 value for the
input's (rounded) value. Just above 1 acosh(1 + t) ~ sqrt(2t) is steep but well conditioned
in t, and t = x - 1 is exact, so an accurate kernel needs only a few ulp there; the naive
formula loses digits to cancellation in x^2 - 1 and in log(1 + small), which the inputs near 1
expose. acosh.out writes `out`, acosh_ writes `self`; both return the tensor written.
"""

import torch


def acosh(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.acosh.default(self)


def acosh_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.acosh.out(self, out=out)


def acosh_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.acosh_.default(self)
