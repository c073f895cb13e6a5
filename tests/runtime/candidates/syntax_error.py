"""Test candidate: does not parse."""

import torch


def add_Tensor(self, other, *, alpha=1)
    return torch.add(self, other, alpha=alpha)
