"""Test candidate: raises torch's out-of-memory error (OOM_KIND=driver: the RuntimeError of a
CUDA driver call that cannot allocate) on its first OOM_TIMES calls (a count kept in a file
named by OOM_COUNT_FILE, 'always' for every call), then adds correctly."""

import os

import torch

_COUNT = os.environ["OOM_COUNT_FILE"]


def _maybe_fail():
    limit = os.environ["OOM_TIMES"]
    n = int(open(_COUNT).read()) if os.path.exists(_COUNT) else 0
    with open(_COUNT, "w") as f:
        f.write(str(n + 1))
    if limit == "always" or n < int(limit):
        if os.environ.get("OOM_KIND") == "driver":
            raise RuntimeError("CUDA error: out of memory (test)")
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (test)")


def add_Tensor(self, other, *, alpha=1):
    _maybe_fail()
    return torch.add(self, other, alpha=alpha)


def add_Scalar(self, other, alpha=1):
    _maybe_fail()
    return torch.add(self, other, alpha=alpha)
