"""Reference for aten::div: torch eager, run by the worker on the native inputs (output dtype
and the GPU baseline) and, for the true-division entries, on float64 copies of the floating
inputs (values).

True division (div.Tensor, div.Scalar, div.out, div.Scalar_out): out = self / other with
broadcasting and type promotion; integer inputs give float32. One IEEE division, so the float64
reference with the default elementwise tolerance is right.

Rounding modes (the *_mode entries; rounding_mode None, "trunc" or "floor") are compared
against torch on the native inputs (reference_precision "native"), because the rounded
quotient depends on the dtype the division is done in: torch's "trunc" truncates the quotient
*after* rounding it to the common dtype, so for float16 a quotient of 1.9996 becomes 2.0 and
truncates to 2, where the float64 quotient would truncate to 1 (a whole unit, far beyond any
tolerance). Floor division follows Python's `//`. The inputs of these entries keep the quotient
small (|self| <= ~40 and small integer divisors; floating scalar divisors are powers of two), so
the floor is exact and torch's CPU kernels (which compute float16/bfloat16 floor division in the
16-bit type step by step) and its CUDA kernels (which keep the intermediate quotient in float32)
agree; division by zero (floating dtypes only) gives inf or NaN as in true division. Integer
floor/trunc division is exact integer arithmetic.

One more platform difference is avoided: when the divisor is a single element broadcast to the
whole result (a Python number, a 0-d tensor or a size-1 tensor), torch's CPU kernels compute the
16-bit quotient in float32 without the intermediate rounding, and its CUDA kernels multiply by
the float32 reciprocal. Such divisors are therefore powers of two (every variant is exact) and
never meet the fractional divisors that make the rounding visible.

The out= overloads with a Python-number divisor insist that `out` has exactly the result dtype,
which the float64 copy of a float32 `out` next to an integer `self` does not; their references
compute the functional op and copy it into `out`, which is the same semantics.
"""

import torch


def div_Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.div.Tensor(self, other)


def div_Scalar(self: torch.Tensor, other) -> torch.Tensor:
    return torch.ops.aten.div.Scalar(self, other)


def div_Tensor_mode(self: torch.Tensor, other: torch.Tensor, *, rounding_mode) -> torch.Tensor:
    return torch.ops.aten.div.Tensor_mode(self, other, rounding_mode=rounding_mode)


def div_Scalar_mode(self: torch.Tensor, other, *, rounding_mode) -> torch.Tensor:
    return torch.ops.aten.div.Scalar_mode(self, other, rounding_mode=rounding_mode)


def div_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.div.out(self, other, out=out)


def div_out_mode(self: torch.Tensor, other: torch.Tensor, *, rounding_mode,
                 out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.div.out_mode(self, other, rounding_mode=rounding_mode, out=out)


def div_Scalar_out(self: torch.Tensor, other, *, out: torch.Tensor) -> torch.Tensor:
    return out.copy_(torch.ops.aten.div.Scalar(self, other))


def div_Scalar_mode_out(self: torch.Tensor, other, *, rounding_mode,
                        out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.div.Scalar_mode_out(self, other, rounding_mode=rounding_mode, out=out)
