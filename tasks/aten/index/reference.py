"""Reference for aten::index (advanced indexing, `self[indices]`): torch eager, run by the worker
on a float64 copy of a floating `self` (values) and on the native inputs (output dtype and the
GPU baseline); index tensors (int64, int32, bool) are never converted.

Each index tensor indexes one dim of `self` (a bool mask as many dims as it has, by its true
positions); the index tensors broadcast to one shape B, which replaces the indexed dims in the
result. Negative indices count from the end.

A None entry of `indices` (a `null` in the case's `tensors` list) takes its dim whole. When
the indexed dims are adjacent, B takes their place in the result; when a None separates them,
B goes first. The cases cover None before, between and after the index tensors, with masks too.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect).
"""

import torch


def index_Tensor(self: torch.Tensor, indices: list) -> torch.Tensor:
    return torch.ops.aten.index.Tensor(self, indices)


def index_Tensor_out(self: torch.Tensor, indices: list, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.index.Tensor_out(self, indices, out=out)


def index_Tensor_hacked_twin(self: torch.Tensor, indices: list) -> torch.Tensor:
    return torch.ops.aten.index.Tensor_hacked_twin(self, indices)
