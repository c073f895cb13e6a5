"""Reference for aten::fill_ (in place): torch eager, run by the worker on float64 copies of the
floating tensors (values) and on the native inputs (output dtype and the GPU baseline).

Every element of self becomes `value` converted to self's dtype (rounded to nearest for floating
dtypes, truncated toward zero for integers, value != 0 for bool); the float64 run keeps the
unrounded value, which the tolerance of self's dtype admits.
"""

import torch


def fill__Scalar(self: torch.Tensor, value) -> torch.Tensor:
    return torch.ops.aten.fill_.Scalar(self, value)


def fill__Tensor(self: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.fill_.Tensor(self, value)
