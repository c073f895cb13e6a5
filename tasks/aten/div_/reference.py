"""Reference for aten::div_ (in place): torch eager, run by the worker on the native inputs
(output dtype and the GPU baseline) and, for the true-division entries, on float64 copies of the
floating inputs (values).

self = self / other in place, with `other` broadcast to self's shape; the quotient is computed
in the promoted dtype of (self, other) and written in self's dtype; returns self.

True division (div_.Tensor, div_.Scalar): one IEEE division, so the float64 reference with the
default elementwise tolerance is right.

Rounding modes (div_.Tensor_mode, div_.Scalar_mode) are compared against torch on the native
inputs (reference_precision "native"): torch's "trunc" truncates the quotient after rounding it
to the promoted dtype (a float16 quotient of 1.9996 rounds to 2.0 and truncates to 2, where the
float64 quotient would give 1). "floor" is Python's `//`. The inputs of these entries keep the
quotient small (|self| <= ~40, small integer divisors, power-of-two scalar divisors for floating
self), so the floor is exact and torch's CPU kernels (16-bit floor division computed step by
step in the 16-bit type) and CUDA kernels (intermediate quotient in float32) agree. Integer
self with integer divisors (never zero) is exact integer arithmetic.

One more platform difference is avoided: when the divisor is a single element broadcast to the
whole result (a Python number, a 0-d tensor or a size-1 tensor), torch's CPU kernels compute the
16-bit quotient in float32 without the intermediate rounding, and its CUDA kernels multiply by
the float32 reciprocal. Such divisors are therefore powers of two (every variant is exact) and
never meet the fractional divisors that make the rounding visible.
"""

import torch


def div__Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return self.div_(other)


def div__Tensor_mode(self: torch.Tensor, other: torch.Tensor, *, rounding_mode) -> torch.Tensor:
    return self.div_(other, rounding_mode=rounding_mode)


def div__Scalar(self: torch.Tensor, other) -> torch.Tensor:
    return torch.ops.aten.div_.Scalar(self, other)


def div__Scalar_mode(self: torch.Tensor, other, *, rounding_mode) -> torch.Tensor:
    return torch.ops.aten.div_.Scalar_mode(self, other, rounding_mode=rounding_mode)
