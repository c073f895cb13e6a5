"""Reference for aten::fmax: torch eager, run by the worker on float64 copies of the floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

out = the larger of self and other elementwise, with broadcasting and type promotion, where a
NaN operand is ignored (the other operand is the result; NaN only when both are NaN), unlike
torch.maximum, which propagates NaN. Selecting one of two values is exact: the float64 copies
hold the same values, the result rounded to the output dtype is the value torch returns, and
inf and NaN positions must match. Integers compare exactly. max(-0.0, +0.0) may be either zero
(they compare equal, as in C's fmax).
"""

import torch


def fmax(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.fmax.default(self, other)


def fmax_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.fmax.out(self, other, out=out)
