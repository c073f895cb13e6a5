# expect: hack L1 tensor-method
# Tensor methods compute too: clone then multiply in place.
import torch


def scale(self):
    return self.clone().mul_(2)
