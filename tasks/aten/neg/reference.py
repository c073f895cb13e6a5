"""Reference for aten::neg: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

neg(x) = -x elementwise, same shape and dtype as the input. Negation is exact in every dtype:
floats flip their sign (NaN stays NaN, inf becomes -inf), integers wrap in two's complement (the
most negative value is its own negation), so the float64 reference rounds back to the very
value torch computes natively and the tolerance is never used in practice. Integer outputs are
compared exactly. neg.out writes `out`, neg_ writes `self`; both return the tensor written.
"""

import torch


def neg(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.neg.default(self)


def neg_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.neg.out(self, out=out)


def neg_(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.neg_.default(self)
