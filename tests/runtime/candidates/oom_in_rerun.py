"""Test candidate: its 2nd call (the determinism re-run of the first attempt) raises torch's
out-of-memory error and its 4th (that re-run again, if the retried case runs it) is wrong;
every other call adds correctly. The call count is kept in the file OOM_COUNT_FILE."""

import os

import torch

_COUNT = os.environ["OOM_COUNT_FILE"]


def add_Tensor(self, other, *, alpha=1):
    n = int(open(_COUNT).read()) + 1 if os.path.exists(_COUNT) else 1
    with open(_COUNT, "w") as f:
        f.write(str(n))
    if n == 2:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (test)")
    out = torch.add(self, other, alpha=alpha)
    return out + 1 if n == 4 else out
