"""Reference for aten::add_ (in place): torch eager, run by the worker on float64 copies of the
floating inputs (values) and on the native inputs (output dtype and the GPU baseline).

self = self + alpha * other in place, with `other` broadcast to self's shape; the value is
computed in the promoted dtype of (self, other) and written in self's dtype; returns self.
One multiplication and one addition per element, so the default elementwise tolerance applies.
The Python numbers of the cases (`other`, `alpha`) are exactly representable in every dtype of
the grid, so no rounding of the scalar enters the comparison.
"""

import torch


def add__Tensor(self: torch.Tensor, other: torch.Tensor, *, alpha=1) -> torch.Tensor:
    return self.add_(other, alpha=alpha)


def add__Scalar(self: torch.Tensor, other, alpha=1) -> torch.Tensor:
    return torch.ops.aten.add_.Scalar(self, other, alpha)
