"""Reference for aten::scalar_tensor: torch eager, on the platform's device. Without an `out`
the reference and the baseline run alike; scalar_tensor.out runs on a float64 copy of a floating
`out` too, which keeps `s` unrounded (the tolerance of out's dtype admits the rounding).

The output is one element, so the validity check skips every case (too small to judge); the
cases vary `s` and the dtype, and a wrong, unwritten or wrongly typed element is still caught.
"""

import torch


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None) -> torch.Tensor:
    return torch.ops.aten.scalar_tensor.default(s, dtype=dtype, layout=layout, device=device,
                                                pin_memory=pin_memory)


def scalar_tensor_out(s, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.scalar_tensor.out(s, out=out)
