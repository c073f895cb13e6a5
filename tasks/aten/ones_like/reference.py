"""Reference for aten::ones_like: torch eager, run by the worker on float64 copies of floating
inputs and on the native inputs (output dtype, shape and the GPU baseline).

The result is ones in the shape of self; with dtype None the float64 run gives float64
ones, which compare equal to the baseline's in self's dtype.
"""

import torch


def ones_like(self: torch.Tensor, *, dtype=None, layout=None, device=None, pin_memory=None,
              memory_format=None) -> torch.Tensor:
    return torch.ops.aten.ones_like.default(self, dtype=dtype, layout=layout, device=device,
                                            pin_memory=pin_memory, memory_format=memory_format)


def ones_like_out(self: torch.Tensor, *, memory_format=None, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.ones_like.out(self, memory_format=memory_format, out=out)
