"""Reference for aten::special_entr: torch eager, run by the worker on float64 copies (values) and
on the native inputs (output dtype and the GPU baseline).

entr(x) = -x * ln(x) for x > 0, 0 for x == 0 (either sign), -inf for x < 0 (including -inf),
-inf for +inf, NaN for NaN; same shape and dtype as the input. The float64 reference rounded to
float16 is -inf where |x ln x| exceeds 65504 (x above about 7000), and the checker requires -inf
there. Near x = 1 the result approaches 0 and a float32 logarithm loses relative accuracy; the
absolute tolerance floor covers that.
"""

import torch


def special_entr(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.special_entr.default(self)


def special_entr_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.special_entr.out(self, out=out)
