"""Reference for aten::cumsum: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

out[..., i, ...] = sum of self[..., j, ...] for j <= i along `dim`; integer and bool inputs give
int64 results; `dtype`, when given, casts the input before summing and is the output dtype.
"""

import torch


def cumsum(self: torch.Tensor, dim: int, *, dtype=None) -> torch.Tensor:
    return torch.cumsum(self, dim, dtype=dtype)
