"""Reference for aten::new_ones: torch eager, run by the worker on float64 copies of floating
inputs and on the native inputs (output dtype, shape and the GPU baseline).

Ones of the requested size; with dtype None the float64 run gives float64 ones, which compare
equal to the baseline's in self's dtype.
"""

import torch


def new_ones(self: torch.Tensor, size, *, dtype=None, layout=None, device=None,
             pin_memory=None) -> torch.Tensor:
    return torch.ops.aten.new_ones.default(self, size, dtype=dtype, layout=layout, device=device,
                                           pin_memory=pin_memory)


def new_ones_out(self: torch.Tensor, size, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.new_ones.out(self, size, out=out)
