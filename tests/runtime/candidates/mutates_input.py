"""Test candidate: right values, but scribbles on its input first."""

import torch


def add_Tensor(self, other, *, alpha=1):
    out = torch.add(self, other, alpha=alpha)
    other.zero_()
    return out


def add_Scalar(self, other, alpha=1):
    return torch.ops.aten.add.Scalar(self, other, alpha)
