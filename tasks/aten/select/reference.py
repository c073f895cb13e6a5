"""Reference for aten::select (the select.int overload): torch eager. The worker runs it on a
float64 copy of a floating `self` (values) and on the native input (the view ATen returns: its
size, stride and storage offset are what the candidate's output must match, on the candidate's
own copy of `self`). select.t, on a Python list, is not a tensor overload and is left out."""

import torch


def select_int(self: torch.Tensor, dim: int, index: int) -> torch.Tensor:
    return torch.select(self, dim, index)
