"""Reference for aten::sin: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

sin(x) elementwise, same shape and dtype as the input; NaN for ±inf and NaN inputs. No
reduction, so the tolerance is the plain elementwise one; the float64 reference of a large
argument is exact for the input's (rounded) value, so large inputs test argument reduction.
"""

import torch


def sin(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.sin.default(self)
