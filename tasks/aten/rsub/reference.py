"""Reference for aten::rsub: torch eager, run by the worker on float64 copies of the floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

rsub is subtraction with the operands reversed: out = other - alpha * self, elementwise, with
broadcasting and torch's type promotion (integer inputs stay integer; an integer tensor and a
floating tensor or Python float give the floating dtype). One multiplication and one
subtraction per element, so the default elementwise tolerance applies. The Python numbers of the
cases (`other`, `alpha`) are exactly representable in every dtype of the grid, so no rounding of
the scalar enters the comparison.
"""

import torch


def rsub_Tensor(self: torch.Tensor, other: torch.Tensor, *, alpha=1) -> torch.Tensor:
    return torch.ops.aten.rsub.Tensor(self, other, alpha=alpha)


def rsub_Scalar(self: torch.Tensor, other, alpha=1) -> torch.Tensor:
    return torch.ops.aten.rsub.Scalar(self, other, alpha)


def rsub_Tensor_out(self: torch.Tensor, other: torch.Tensor, *, alpha=1,
                    out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.rsub.Tensor_out(self, other, alpha=alpha, out=out)


def rsub_Scalar_out(self: torch.Tensor, other, alpha=1, *, out: torch.Tensor) -> torch.Tensor:
    # The out= overload insists that `out` has exactly the result dtype, which the float64 copy
    # of a float32 `out` next to an integer `self` does not; the functional op followed by a copy
    # into `out` has the same semantics (compute in the result dtype, cast to out's dtype).
    return out.copy_(torch.ops.aten.rsub.Scalar(self, other, alpha))
