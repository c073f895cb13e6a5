"""Reference for aten::hardsigmoid: torch eager, run by the worker on float64 copies (values) and
on the native inputs (output dtype and the GPU baseline).

hardsigmoid(x) = min(max(x + 3, 0), 6) / 6 elementwise: 0 for x <= -3, 1 for x >= 3, linear in
between; -inf gives 0, +inf gives 1, NaN gives NaN (torch's clamp propagates it). Same shape and
dtype as the input; one rounding, so the plain elementwise tolerance.
"""

import torch


def hardsigmoid(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.hardsigmoid.default(self)


def hardsigmoid_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.hardsigmoid.out(self, out=out)
