"""Test candidate: forgets alpha in add.Tensor; add.Scalar is right."""

import torch


def add_Tensor(self, other, *, alpha=1):
    return torch.add(self, other)


def add_Scalar(self, other, alpha=1):
    return torch.ops.aten.add.Scalar(self, other, alpha)
