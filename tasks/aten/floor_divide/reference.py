"""Reference for aten::floor_divide: torch eager on the native inputs (reference_precision
"native"), which gives the values, the output dtype and the GPU baseline.

out = floor(self / other) elementwise, Python's `//` (torch.div with rounding_mode="floor"),
with broadcasting and type promotion: integer inputs give an exact integer result; floating
results keep their dtype. For floating values torch computes q = (a - fmod(a, b)) / b, one less
when the remainder's sign differs from b's, rounded back up when q lands more than half below
an integer; a zero divisor gives a / b (inf or NaN), an inf or NaN dividend gives NaN, and
x // inf is 0 or -1. For float16 and bfloat16 torch's CPU kernels run these steps in the 16-bit
dtype (rounding after each), its CUDA kernels in float32, so for large quotients the float64
floor, the CPU result and the CUDA result can differ by a unit or more; the reference is
therefore the native computation, and the inputs keep the quotient small (|self| <= ~40,
divisors that are small integers, fractions in [1, 4] or exactly representable Python numbers),
where every variant gives the exact floor. Integer divisors are never zero.
"""

import torch


def floor_divide(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.floor_divide.default(self, other)


def floor_divide_Scalar(self: torch.Tensor, other) -> torch.Tensor:
    return torch.ops.aten.floor_divide.Scalar(self, other)


def floor_divide_out(self: torch.Tensor, other: torch.Tensor, *,
                     out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.floor_divide.out(self, other, out=out)


def floor_divide_Scalar_out(self: torch.Tensor, other, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.floor_divide.Scalar_out(self, other, out=out)
