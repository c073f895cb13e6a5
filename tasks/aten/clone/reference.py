"""Reference for aten::clone: torch eager, run by the worker on float64 (complex128) copies of
floating (complex) inputs (values) and on the native inputs (output dtype and the GPU baseline).

A copy, so exact up to the final rounding of the float64 copy back to the output dtype, which
is the identity for values that came from that dtype.
"""

import torch


def clone(self: torch.Tensor, *, memory_format=None) -> torch.Tensor:
    return torch.ops.aten.clone.default(self, memory_format=memory_format)


def clone_out(self: torch.Tensor, *, memory_format=None, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.clone.out(self, memory_format=memory_format, out=out)
