"""Reference for aten::arange: torch eager, on the platform's device. Without an `out` the
reference and the baseline run alike; the out= overloads run on a float64 copy of a floating
`out` too, which computes the values unrounded. The tolerance of the output dtype admits the
difference between computing start + i * step in float32 (CUDA's accumulation type) and in
float64 (the CPU's).
"""

import torch

_arange = torch.ops.aten.arange


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None) -> torch.Tensor:
    return _arange.default(end, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def arange_start(start, end, *, dtype=None, layout=None, device=None,
                 pin_memory=None) -> torch.Tensor:
    return _arange.start(start, end, dtype=dtype, layout=layout, device=device,
                         pin_memory=pin_memory)


def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None,
                      pin_memory=None) -> torch.Tensor:
    return _arange.start_step(start, end, step, dtype=dtype, layout=layout, device=device,
                              pin_memory=pin_memory)


def arange_start_out(start, end, step=1, *, out: torch.Tensor) -> torch.Tensor:
    return _arange.start_out(start, end, step, out=out)


def arange_out(end, *, out: torch.Tensor) -> torch.Tensor:
    return _arange.out(end, out=out)
