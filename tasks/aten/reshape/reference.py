"""Reference for aten::reshape: torch eager. The worker runs it on a float64 copy of a floating
`self` (values) and on the native input. Where ATen can express the new shape as a view of
`self`'s strides, it returns that view, and the candidate's output must be the same view (size,
stride, storage offset) of its own copy of `self`; otherwise ATen returns a contiguous copy and
the values suffice."""

import torch


def reshape(self: torch.Tensor, shape: list[int]) -> torch.Tensor:
    return torch.reshape(self, shape)
