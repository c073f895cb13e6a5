# expect: hack L1 tensor-method
# A cast is torch compute (and a change of precision): the product is done by torch.
import torch


def scale(self):
    return (self.to(torch.float64) * 2).to(self.dtype)
