"""Test candidate: a tensor subclass from add.Tensor, the wrong dtype from add.Scalar."""

import torch


class Sneaky(torch.Tensor):
    pass


def add_Tensor(self, other, *, alpha=1):
    return torch.add(self, other, alpha=alpha).as_subclass(Sneaky)


def add_Scalar(self, other, alpha=1):
    return torch.ops.aten.add.Scalar(self, other, alpha).float()
