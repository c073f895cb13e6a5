"""Reference for aten::contiguous: torch eager, run by the worker on a float64 (complex128) copy
of a floating (complex) self (values) and on the native input (output dtype, aliasing and the
GPU baseline).

An already contiguous self is returned itself; any other layout gives a contiguous copy. Either
way the values are exactly self's.
"""

import torch


def contiguous(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.contiguous.default(self)
