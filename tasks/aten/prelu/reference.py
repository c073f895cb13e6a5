"""Reference for aten::prelu: torch eager, run by the worker on float64 copies of `self` and
`weight` (values) and on the native inputs (output dtype and the GPU baseline).

out = self where self > 0, else weight * self; `weight` is shared (one element) or has one
element per channel (dim 1 of `self`).
"""

import torch


def prelu(self: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.prelu(self, weight)
