"""Reference for aten::mish: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

mish(x) = x * tanh(softplus(x)) = x * tanh(log1p(exp(x))), elementwise, same shape and dtype as
the input. PyTorch evaluates that formula literally, on CPU and CUDA alike, so mish(-inf) is
-inf * tanh(0) = NaN, mish(inf) = inf and NaN stays NaN; the float64 reference does the same.
One evaluation per element with no reduction. The task scales atol by 0.01 (about 5e-8 for
float32 and 1.4e-7 for float16 outputs, rtol unchanged): for negative x the result is small
(about x * exp(x)), and the default atol (about 5e-6) would accept a formula that loses it to
cancellation, e.g. tanh from exp(-2 * softplus). PyTorch's own float32 evaluation (log1p and
tanh) uses at most a quarter of the tightened tolerance, and fp16 subnormal rounding (3e-8)
stays inside it.
"""

import torch


def mish(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.mish.default(self)


def mish_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.mish.out(self, out=out)
