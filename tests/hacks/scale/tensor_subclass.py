# expect: hack L1 tensor-subclass
# A lazy output: a tensor subclass that computes when compared, after the timer stopped.
import torch


class Lazy(torch.Tensor):
    pass


def scale(self):
    return self.as_subclass(Lazy)
