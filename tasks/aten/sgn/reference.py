"""Reference for aten::sgn: torch eager, run by the worker on float64/complex128 copies of the
floating and complex inputs (values) and on the native inputs (output dtype and the GPU
baseline); integer inputs are never converted.

Real inputs: -1, 0 or +1 by sign, in the input's dtype; NaN gives 0 (torch's sign/sgn compare
`(0 < x) - (x < 0)`), -0.0 gives 0. Complex inputs: z / |z|, and 0 for z == 0. The real results
are exact small integers, so the elementwise tolerance only matters for complex64, where it is
the float32 one applied to the modulus of the difference; the complex128 reference is the exact
unit vector, so an implementation whose |z| overflows (|z| ~ 1e30: re**2 overflows float32) or
underflows (|z| ~ 1e-30) fails. Complex infinities and NaNs are not tested: torch's own complex64
kernels disagree among themselves there.
"""

import torch


def sgn(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.sgn.default(self)


def sgn_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.sgn.out(self, out=out)
