"""Reference for aten::pow: torch eager, run by the worker on float64 copies of the floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

out = self ** exponent elementwise, with broadcasting and torch's type promotion; either
operand may be a Python number (pow.Tensor_Scalar, pow.Scalar). Floating powers follow C's pow
(pow(x, 0) = 1 and pow(1, y) = 1 even for NaN, a negative finite base to a non-integer power is
NaN, signed zeros and infinities as in C99), except that torch computes an exponent given as
the number 0.5 or -0.5 as a (reciprocal) square root; those two exponents only meet
non-negative bases here, where both agree. Integer powers are exact integer arithmetic (with a
negative exponent only 1 and -1 have non-zero results), and the integer cases stay clear of
overflow.

Tolerance: the default elementwise one. A float32 power computed as exp2(y * log2|x|) loses
about |y * log2|x|| ulps to the rounding of the logarithm; the bases and exponents here keep that
below ~60, well inside 64 ulps, and float16/bfloat16 results computed in float32 are far inside
their allowance.

The out= overloads with a Python-number operand insist that `out` has exactly the result dtype,
which the float64 copy of a float32 `out` next to an integer tensor does not; their references
compute the functional op and copy it into `out`, which is the same semantics.
"""

import torch


def pow_Tensor_Tensor(self: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.pow.Tensor_Tensor(self, exponent)


def pow_Tensor_Scalar(self: torch.Tensor, exponent) -> torch.Tensor:
    return torch.ops.aten.pow.Tensor_Scalar(self, exponent)


def pow_Scalar(self, exponent: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.pow.Scalar(self, exponent)


def pow_Tensor_Tensor_out(self: torch.Tensor, exponent: torch.Tensor, *,
                          out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.pow.Tensor_Tensor_out(self, exponent, out=out)


def pow_Scalar_out(self, exponent: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return out.copy_(torch.ops.aten.pow.Scalar(self, exponent))


def pow_Tensor_Scalar_out(self: torch.Tensor, exponent, *, out: torch.Tensor) -> torch.Tensor:
    return out.copy_(torch.ops.aten.pow.Tensor_Scalar(self, exponent))
