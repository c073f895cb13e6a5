"""Reference for aten::narrow: torch eager. The worker runs it on a float64 copy of a floating
`self` (values) and on the native input (the view ATen returns: its size, stride and storage
offset are what the candidate's output must match, on the candidate's own copy of `self`)."""

import torch


def narrow(self: torch.Tensor, dim: int, start: int, length: int) -> torch.Tensor:
    return torch.narrow(self, dim, start, length)


def narrow_Tensor(self: torch.Tensor, dim: int, start: torch.Tensor,
                  length: int) -> torch.Tensor:
    return torch.narrow(self, dim, start, length)
