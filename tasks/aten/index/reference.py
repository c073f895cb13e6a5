"""Reference for aten::index (advanced indexing, `self[indices]`): torch eager, run by the worker
on a float64 copy of a floating `self` (values) and on the native inputs (output dtype and the
GPU baseline); index tensors (int64, int32, bool) are never converted.

Each index tensor indexes one dim of `self` (a bool mask as many dims as it has, by its true
positions); the index tensors broadcast to one shape B, which replaces the indexed dims in the
result. Negative indices count from the end.

Harness limitation: the `tensors` argument kind holds tensor descriptors only, so the cases
never put None in `indices` (a list without None indexes the leading dims of `self`); the None
semantics are described in the prompt all the same.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect).
"""

import torch


def index_Tensor(self: torch.Tensor, indices: list) -> torch.Tensor:
    return torch.ops.aten.index.Tensor(self, indices)


def index_Tensor_out(self: torch.Tensor, indices: list, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.index.Tensor_out(self, indices, out=out)


def index_Tensor_hacked_twin(self: torch.Tensor, indices: list) -> torch.Tensor:
    return torch.ops.aten.index.Tensor_hacked_twin(self, indices)
