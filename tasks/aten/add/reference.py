"""Reference for aten::add: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline)."""

import torch


def add_Tensor(self: torch.Tensor, other: torch.Tensor, *, alpha: float = 1) -> torch.Tensor:
    return torch.add(self, other, alpha=alpha)


def add_Scalar(self: torch.Tensor, other: float, alpha: float = 1) -> torch.Tensor:
    return torch.ops.aten.add.Scalar(self, other, alpha)


def add_out(self: torch.Tensor, other: torch.Tensor, *, alpha: float = 1,
            out: torch.Tensor) -> torch.Tensor:
    return torch.add(self, other, alpha=alpha, out=out)
