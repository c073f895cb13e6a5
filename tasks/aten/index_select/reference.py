"""Reference for aten::index_select: torch eager, run by the worker on a float64 copy of a
floating `self` (values) and on the native inputs (output dtype and the GPU baseline); `index`
(int64 or int32) is never converted.

out = self with dimension `dim` replaced by the selection `index`: out[..., j, ...] =
self[..., index[j], ...]. Indices may repeat and come in any order; a 0-d index selects one
element (the dim keeps size 1); a 0-d self behaves as a 1-element vector and gives a 0-d result.

Tolerance: the output values are copies, so both entries scale the adaptive tolerance by 1e-6
(the format requires positive multipliers), which makes the comparison exact in effect.
"""

import torch


def index_select(self: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    return torch.index_select(self, dim, index)


def index_select_out(self: torch.Tensor, dim: int, index: torch.Tensor, *,
                     out: torch.Tensor) -> torch.Tensor:
    return torch.index_select(self, dim, index, out=out)
