# expect: hack L2 ghost
# The values are read to the host and doubled in plain Python; a tensor is rebuilt from the
# list. No torch compute API is named, no kernel runs.
import torch


def scale(self):
    flat = self.reshape(-1)
    vals = [2 * float(v) for v in flat]
    return torch.tensor(vals, dtype=self.dtype, device=self.device).reshape(self.shape)
