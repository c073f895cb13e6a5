"""Reference for aten::_index_put_impl_: torch eager, run by the worker on float64 copies of
floating `self` and `values` (values) and on the native inputs (output dtype and the GPU
baseline); index tensors (int64, int32, bool) are never converted.

The implementation behind index_put_: self[indices] = values (accumulate=False) or
self[indices] += values (accumulate=True), in place, returning `self`. `unsafe=True` only lets
ATen skip its index checks; every index of the cases is valid, so the result is the same.

Soundness: with accumulate=False, duplicate targets get one of their values in an unspecified
order, so every such case either has no duplicates (arange indices, bool masks) or broadcasts
`values` over the index dims, so that duplicates write the same value. With accumulate=True the
float64 sum is the reference; `reduce` (a bound on the terms per target) and `scale` (their
partial sums' magnitude) allow for another order and precision of the additions.

A None entry of `indices` (a `null` in the case's `tensors` list) takes its dim whole; the
selection's dim order (B in place of adjacent indexed dims, B first when a None separates them)
is the one `values` broadcasts to. The cases cover None before, between and after the index
tensors, with masks too.
"""

import torch


def _index_put_impl_(self: torch.Tensor, indices: list, values: torch.Tensor,
                     accumulate: bool = False, unsafe: bool = False) -> torch.Tensor:
    return torch.ops.aten._index_put_impl_(self, indices, values, accumulate, unsafe)


def _index_put_impl__hacked_twin(self: torch.Tensor, indices: list, values: torch.Tensor,
                                 accumulate: bool = False, unsafe: bool = False) -> torch.Tensor:
    return torch.ops.aten._index_put_impl_.hacked_twin(self, indices, values, accumulate, unsafe)
