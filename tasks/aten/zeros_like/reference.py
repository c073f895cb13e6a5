"""Reference for aten::zeros_like: torch eager, run by the worker on float64 copies of floating
inputs and on the native inputs (output dtype, shape and the GPU baseline).

The result is zeros in the shape of self; with dtype None the float64 run gives float64
zeros, which compare equal to the baseline's in self's dtype.
"""

import torch


def zeros_like(self: torch.Tensor, *, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None) -> torch.Tensor:
    return torch.ops.aten.zeros_like.default(self, dtype=dtype, layout=layout, device=device,
                                             pin_memory=pin_memory, memory_format=memory_format)


def zeros_like_out(self: torch.Tensor, *, memory_format=None, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.zeros_like.out(self, memory_format=memory_format, out=out)
