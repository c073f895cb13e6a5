"""Reference for aten::full: torch eager, on the platform's device. The reference and the
baseline run alike, except that full.out runs on a float64 copy of a floating `out`, which keeps
fill_value unrounded; the tolerance of out's dtype admits the rounding.
"""

import torch


def full(size, fill_value, *, dtype=None, layout=None, device=None,
         pin_memory=None) -> torch.Tensor:
    return torch.ops.aten.full.default(size, fill_value, dtype=dtype, layout=layout,
                                       device=device, pin_memory=pin_memory)


def full_out(size, fill_value, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.full.out(size, fill_value, out=out)
