"""Reference for aten::argmax: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

argmax: the index of the largest element along `dim`, or, with dim=None, in the row-major
flattening of the logical tensor; keepdim keeps the reduced dim (with dim=None: every dim) as
size 1. The result is int64. Ties go to the smallest index; NaN counts as larger than every
number, so the first NaN wins. float64 copies of 16-bit or float32 values are exact and keep
every tie and every NaN, so the float64 reference is the native answer; int64 outputs are
compared exactly. torch rejects bool inputs and empty reductions, so neither is tested.
"""

import torch


def argmax(self: torch.Tensor, dim: int | None = None, keepdim: bool = False) -> torch.Tensor:
    return torch.argmax(self, dim, keepdim)


def argmax_out(self: torch.Tensor, dim: int | None = None, keepdim: bool = False, *,
               out: torch.Tensor) -> torch.Tensor:
    return torch.argmax(self, dim, keepdim, out=out)
