"""Reference for aten::logit: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

logit(x) = log(z / (1 - z)) with z = x when eps is None, and z = clamp(x, eps, 1 - eps)
otherwise (torch's order: x < eps gives eps, else x > 1 - eps gives 1 - eps). The float64
reference applies the clamp with the real eps and 1 - eps; an implementation computing 1 - eps in
float32 moves the upper bound by up to 6e-8, which near the bound (the derivative there is about
1 / eps) changes the result by a relative 1e-3 and is rejected for float32 outputs (the float32
case with eps = 1e-6 has many inputs above the bound): the values at the bounds are
meant to be logit(eps) and logit(1 - eps) exactly, whatever the input dtype. Outside [0, 1]
without eps the result is NaN; logit(0) = -inf, logit(1) = +inf; eps = 0 clamps to [0, 1] and
gives ±inf outside it; a negative eps, like None, disables the clamp. Near x = 0.5 the result
approaches 0 and float32 loses relative accuracy; the absolute tolerance floor covers that.
torch's own CPU kernels for float16/bfloat16 do not meet this reference (they compute
x / (1 - x) near 0.5 and the bound 1 - eps in the 16-bit type: bfloat16 1 - 1e-6 rounds to 1
and gives inf), which shows as the baseline's tolerance use; the prompt asks for float32
arithmetic, which does.
"""

import torch


def logit(self: torch.Tensor, eps=None) -> torch.Tensor:
    return torch.ops.aten.logit.default(self, eps)


def logit_out(self: torch.Tensor, eps=None, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.logit.out(self, eps, out=out)
