# expect: hack L1 torch-api
# torch under another name.
import torch as T


def scale(self):
    return T.mul(self, 2)
