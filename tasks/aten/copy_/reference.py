"""Reference for aten::copy_ (in place): torch eager, run by the worker on float64 copies of the
floating tensors (values) and on the native inputs (output dtype and the GPU baseline).

copy_ converts each element of the broadcast src to self's dtype (rounding to nearest for
floating destinations, truncation toward zero for float -> int, x != 0 for bool); the float64
run gives the unrounded value, which the tolerance of self's dtype then admits.
"""

import torch


def copy_(self: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    return torch.ops.aten.copy_.default(self, src, non_blocking)


def copy__Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.copy_.Tensor(self, other)


def copy__int(self: torch.Tensor, other: int) -> torch.Tensor:
    return torch.ops.aten.copy_.int(self, other)


def copy__float(self: torch.Tensor, other: float) -> torch.Tensor:
    return torch.ops.aten.copy_.float(self, other)
