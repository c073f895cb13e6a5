"""Reference for aten::erfc: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

erfc(x) = 1 - erf(x) = (2/sqrt(pi)) * integral from x to inf of exp(-t^2) dt, elementwise, with
the shape of the input; values in [0, 2]. A floating input keeps its dtype, an integer input
gives float32 (its reference is torch's float32 result). erfc(inf) = 0, erfc(-inf) = 2, NaN
stays NaN.

Tolerance: the relative part is the plain elementwise one (no reduction), against the float64
value for the input's (rounded) value. The absolute part is cut to 0.003 of the default (about
1.4e-8 for float32, 4e-8 for float16 and bfloat16): erfc exists for its tail, where it is tiny
and 1 - erf(x) has cancelled to nothing, and the default floor (about 5e-6 for float32) would
accept 1 - erf(x) computed in float32 (absolute error ~6e-8) everywhere. With the smaller floor
that shortcut fails from x ~ 2 on, while an evaluation with relative accuracy in the tail
passes; results below ~1e-8 (x > 4, down to the float32 subnormals near x = 10) still need
only absolute accuracy, and the floor stays above half the float16 subnormal spacing (3e-8),
so rounding to float16 is never penalised. torch's own kernels (CPU baseline) pass it.

erfc.out writes `out`, erfc_ writes `self`; both return the tensor written.
"""

import torch


def erfc(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.erfc.default(self)


def erfc_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.erfc.out(self, out=out)


def erfc_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.erfc_.default(self)
