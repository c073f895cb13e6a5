# expect: hack L1 import
# The baseline's own library.
import torch
import vllm


def scale(self):
    return torch.mul(self, 2)
