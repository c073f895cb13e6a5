"""Shipped solution for aten::t: pure metadata. A 2-D `self` is viewed with its two sizes and
two strides swapped; a 0-D or 1-D `self` is viewed unchanged. The storage offset is kept. No
element is read or written, so no kernel runs."""

import torch


def t(self: torch.Tensor) -> torch.Tensor:
    nd = self.dim()
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    sizes, strides = list(self.shape), list(self.stride())
    return self.as_strided(sizes[::-1], strides[::-1], self.storage_offset())
