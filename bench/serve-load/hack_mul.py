import torch
def scale(x):
    return torch.mul(x, 2)
