"""Test candidate: defines add_Tensor only; add_Scalar is not callable."""

import torch

add_Scalar = 3


def add_Tensor(self, other, *, alpha=1):
    return torch.add(self, other, alpha=alpha)
