"""Reference for aten::index_put_: torch eager, run by the worker on float64 copies of floating
`self` and `values` (values) and on the native inputs (output dtype and the GPU baseline);
index tensors (int64, int32, bool) are never converted.

self[indices] = values (accumulate=False) or self[indices] += values (accumulate=True), in
place, returning `self`. `values` broadcasts to the shape self[indices] has.

Soundness: with accumulate=False, duplicate targets get one of their values in an unspecified
order, so every such case either has no duplicates (arange indices, bool masks) or broadcasts
`values` over the index dims, so that duplicates write the same value. With accumulate=True
the sum of a target's terms in float64 is the reference; a candidate adds in another order and
precision, which `reduce` (a bound on the number of terms per target) and `scale` (their
partial sums' magnitude) allow for.

A None entry of `indices` (a `null` in the case's `tensors` list) takes its dim whole; the
selection's dim order (B in place of adjacent indexed dims, B first when a None separates them)
is the one `values` broadcasts to. The cases cover None before, between and after the index
tensors, with masks too.
"""

import torch


def index_put_(self: torch.Tensor, indices: list, values: torch.Tensor,
               accumulate: bool = False) -> torch.Tensor:
    return torch.ops.aten.index_put_(self, indices, values, accumulate)


def index_put__hacked_twin(self: torch.Tensor, indices: list, values: torch.Tensor,
                           accumulate: bool = False) -> torch.Tensor:
    return torch.ops.aten.index_put_.hacked_twin(self, indices, values, accumulate)
