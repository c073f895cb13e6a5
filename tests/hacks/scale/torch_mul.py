# expect: hack L1 torch-api
# The reference op itself, called directly.
import torch


def scale(self):
    return torch.mul(self, 2)
