"""Reference for aten::heaviside: torch eager, run by the worker on float64 copies (values) and on
the native inputs (output dtype and the GPU baseline).

heaviside(self, values) = values where self == 0 (either sign of zero), 1 where self > 0, and 0
where self < 0 or self is NaN; `self` and `values` broadcast and must share one dtype, which is
the output dtype. The result is a selection of exact values (0, 1 or an element of `values`), so
the float64 reference rounds back to the native values exactly and any error is a wrong selection.
"""

import torch


def heaviside(self: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.heaviside.default(self, values)


def heaviside_out(self: torch.Tensor, values: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.heaviside.out(self, values, out=out)
