"""Reference for aten::expand_as: torch eager. The worker runs it on a float64 copy of a floating
`self` (values) and on the native input (the view ATen returns: its size, stride and storage
offset are what the candidate's output must match, on the candidate's own copy of `self`).
Only the shape of `other` matters."""

import torch


def expand_as(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return self.expand_as(other)
