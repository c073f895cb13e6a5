"""Reference for aten::silu: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

silu(x) = x * sigmoid(x), elementwise, same shape and dtype as the input. No reduction, so the
tolerance is the plain elementwise one.
"""

import torch


def silu(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.silu.default(self)
