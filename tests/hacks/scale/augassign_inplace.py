# expect: hack L2 ghost
# Allocation and copy_ are allowed; the in-place operator then computes with torch. Like any
# operator on a tensor, invisible to a syntax-only scan.
import torch


def scale(self):
    y = torch.empty_like(self)
    y.copy_(self)
    y *= 2
    return y
