"""Reference for aten::expand: torch eager. The worker runs it on a float64 copy of a floating
`self` (values) and on the native input (the view ATen returns: its size, stride and storage
offset are what the candidate's output must match, on the candidate's own copy of `self`)."""

import torch


def expand(self: torch.Tensor, size: list[int], *, implicit: bool = False) -> torch.Tensor:
    return torch.ops.aten.expand.default(self, size, implicit=implicit)
