"""Reference for aten::sum: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

sum: all elements, 0-d result. sum.dim_IntList: over the listed dims (None: all), keepdim keeps
them as size 1. The result keeps the input's floating dtype (dtype is None in this task); an
empty reduction gives 0.

Tolerance: each output adds K terms of standard deviation 1 (K = `reduce`: numel for the full
sum, the product of the reduced sizes for sum.dim_IntList), so the float32 accumulation error
grows like eps*sqrt(K) and `scale` stays 1.
"""

import torch


def sum(self: torch.Tensor, *, dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.ops.aten.sum.default(self, dtype=dtype)


def sum_dim_IntList(self: torch.Tensor, dim: list[int] | None, keepdim: bool = False, *,
                    dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.ops.aten.sum.dim_IntList(self, dim, keepdim, dtype=dtype)
