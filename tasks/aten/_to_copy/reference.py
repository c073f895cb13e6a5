"""Reference for aten::_to_copy: torch eager, run by the worker on float64 copies of floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

With dtype None the float64 run returns float64 values that round back to self's dtype exactly;
with a dtype, it converts the exact value once (rounding to nearest, truncation toward zero for
float -> int, x != 0 for bool), which the tolerance of the output dtype admits.
"""

import torch


def _to_copy(self: torch.Tensor, *, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking: bool = False, memory_format=None) -> torch.Tensor:
    return torch.ops.aten._to_copy.default(self, dtype=dtype, layout=layout, device=device,
                                           pin_memory=pin_memory, non_blocking=non_blocking,
                                           memory_format=memory_format)


def _to_copy_out(self: torch.Tensor, *, non_blocking: bool = False, memory_format=None,
                 out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten._to_copy.out(self, non_blocking=non_blocking,
                                       memory_format=memory_format, out=out)
