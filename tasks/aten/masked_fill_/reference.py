"""Reference for aten::masked_fill_.Scalar: torch eager, run by the worker on a float64 copy of a
floating `self` (values) and on the native inputs (output dtype and the GPU baseline); the mask
is never converted.

In place: self[p] = value wherever the mask, broadcast to self's shape, is true; other elements
are left as they were. Returns self.
"""

import torch


def masked_fill__Scalar(self: torch.Tensor, mask: torch.Tensor, value) -> torch.Tensor:
    return self.masked_fill_(mask, value)
