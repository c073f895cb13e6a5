"""Reference for aten::gather: torch eager, run by the worker on a float64 copy of a floating
`self` (values) and on the native inputs (output dtype and the GPU baseline); `index` is never
converted.

out[p] = self[p with its coordinate along dim replaced by index[p]]; out has index's shape and
self's dtype.
"""

import torch


def gather(self: torch.Tensor, dim: int, index: torch.Tensor, *, sparse_grad: bool = False) -> torch.Tensor:
    return torch.gather(self, dim, index, sparse_grad=sparse_grad)
