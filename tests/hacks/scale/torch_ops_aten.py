# expect: hack L1 torch-api
# The ATen operator behind the public API.
import torch


def scale(self):
    return torch.ops.aten.mul.Tensor(self, 2)
