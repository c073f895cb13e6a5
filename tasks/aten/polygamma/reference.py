"""Reference for aten::polygamma: torch eager, run by the worker on float64 copies (values) and on
the native inputs (output dtype and the GPU baseline).

polygamma(n, x) = d^(n+1)/dx^(n+1) lgamma(x), elementwise: digamma for n = 0, trigamma for
n = 1, (-1)^(n+1) n! zeta(n+1, x) above. The cases use x > 0 (plus exact zeros, where the result
is an infinity with the sign of (-1)^(n+1), and -inf for digamma at +0), where PyTorch's float64
evaluation is accurate to about 1e-15 relative, so the float64 reference stands in for the exact
value. Values reach float16's overflow (polygamma(4, 0.001) = -2.4e16): the comparison requires
the infinity there. One evaluation per element with no reduction, so the plain elementwise
tolerance applies (float32: 64 ulps relative plus the atol floor, which covers digamma's zero
near x = 1.4616 in the 1.25..1.75 case).
"""

import torch


def polygamma(n: int, self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.polygamma.default(n, self)


def polygamma_out(n: int, self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.polygamma.out(n, self, out=out)
