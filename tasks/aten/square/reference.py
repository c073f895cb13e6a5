"""Reference for aten::square: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline); integer inputs are never
converted.

square(x) = x * x elementwise, in the dtype of `self` (bool promotes to int64). For float16,
bfloat16 and float32 inputs the float64 square is exact, so the reference is the true square and
the tolerance only has to absorb the one rounding to the output dtype; where that rounding
overflows (float16 |x| > 255.9, bfloat16/float32 |x| > 1.8e19) the result must be +inf, as the
checker requires inf at the same positions. Integer ranges are chosen so that no square
overflows; integer results are compared exactly.
"""

import torch


def square(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.square.default(self)


def square_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.square.out(self, out=out)
