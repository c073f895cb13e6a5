# expect: hack L1 builtin
# eval of an expression string.
import torch


def scale(self):
    return eval("torch.mul(self, 2)")
