# expect: hack L1 torch-api
# torch.nn.functional compute (a 1x1 linear layer with weight 2).
import torch
import torch.nn.functional as F


def scale(self):
    w = torch.full((1, 1), 2.0, dtype=self.dtype, device=self.device)
    return F.linear(self.reshape(-1, 1), w).reshape(self.shape)
