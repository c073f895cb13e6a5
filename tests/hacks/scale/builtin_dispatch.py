# expect: hack L2 ghost
# Builtins that dispatch to tensor methods: pow() and abs() compute with torch on a tensor.
import torch


def scale(self):
    return pow(self, 1) * 2 if self.numel() else torch.empty_like(self)
