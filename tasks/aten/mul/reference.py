"""Reference for aten::mul: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

mul.Tensor broadcasts `self` against `other`; mul.Scalar multiplies by a Python number. Both keep
the inputs' floating dtype. One rounding per element, so no reduction term enters the tolerance.
"""

import torch


def mul_Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.mul.Tensor(self, other)


def mul_Scalar(self: torch.Tensor, other: float) -> torch.Tensor:
    return torch.ops.aten.mul.Scalar(self, other)
