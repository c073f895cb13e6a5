"""Reference for aten::cosh: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

cosh(x) = (exp(x) + exp(-x)) / 2 elementwise, with the shape of the input; a floating input keeps
its dtype, an integer input gives float32 (its reference is torch's float32 result, within an
ulp of the exact value). cosh(+-inf) = inf, NaN stays NaN, and the result overflows to inf
where it exceeds the output dtype (|x| > 89.4 for float32 and bfloat16, > 11.8 for float16):
the worker compares the float64 reference rounded to the output dtype there, so inf is
required. No reduction, so the tolerance is the plain elementwise one, applied against the
float64 value of the input's (rounded) value; near |x| = 89 this asks for a relative accuracy
that an exp evaluated with float32 argument rounding (error ~ |x| * 2**-24) only just meets.
Integer inputs are not upcast by the worker, so their reference is torch's float32 kernel; the
vectorised CPU kernel overflows already past |x| = 88.7 (exp(|x|) / 2), so the integer inputs
stay within [-88, 88], where it is accurate. (The float64 reference of floating inputs has no
such problem; the CPU baseline then exceeds the tolerance near overflow, which is recorded as
its tol_use and does not affect the verdict.)
cosh.out writes `out`, cosh_ writes `self`; both return the tensor written.
"""

import torch


def cosh(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.cosh.default(self)


def cosh_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.cosh.out(self, out=out)


def cosh_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.cosh_.default(self)
