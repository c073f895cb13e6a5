"""Reference for aten::sub: torch eager, run by the worker on float64 copies of the floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

out = self - alpha * other, elementwise, with broadcasting and torch's type promotion (integer
inputs stay integer and wrap like C integers; an integer tensor and a floating tensor or Python
float give the floating dtype). One subtraction and at most one multiplication per element, so
the default elementwise tolerance applies: a float32 computation rounded once to a 16-bit output
stays well inside it. The Python-number operands of the cases (`other`, `alpha`) are exactly
representable in every dtype of the grid, so no rounding of the scalar enters the comparison.
"""

import torch


def sub_Tensor(self: torch.Tensor, other: torch.Tensor, *, alpha=1) -> torch.Tensor:
    return torch.ops.aten.sub.Tensor(self, other, alpha=alpha)


def sub_Scalar(self: torch.Tensor, other, alpha=1) -> torch.Tensor:
    return torch.ops.aten.sub.Scalar(self, other, alpha)


def sub_out(self: torch.Tensor, other: torch.Tensor, *, alpha=1,
            out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.sub.out(self, other, alpha=alpha, out=out)


def sub_Scalar_out(self: torch.Tensor, other, alpha=1, *, out: torch.Tensor) -> torch.Tensor:
    # torch's Scalar_out insists that `out` has exactly the result dtype, which the float64 copy
    # of a float32 `out` next to an integer `self` does not; the functional op followed by a copy
    # into `out` has the same semantics (compute in the result dtype, cast to out's dtype).
    return out.copy_(torch.ops.aten.sub.Scalar(self, other, alpha))
