# expect: hack L1 import
# The work done by numpy on the host.
import numpy as np
import torch


def scale(self):
    return torch.tensor(np.multiply(self.tolist(), 2), dtype=self.dtype, device=self.device)
