"""Reference for aten::soft_margin_loss: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

Elementwise loss log(1 + exp(-target * self)); reduction 0 returns it with self's shape, 1 its
mean over all elements as a 0-d tensor (NaN for no elements), 2 its sum (0 for no elements).
soft_margin_loss.out writes the same into `out`. Targets are drawn from {-1, 0, 1} (the usual
+-1 labels, plus 0, which gives log 2) or uniformly from [-1, 1].

The logits reach about 60 in magnitude (standard deviation 12), below the float32 overflow of
exp (88), so the direct formula in float32 is still exact enough; a float16 or bfloat16
exp(-t * x) overflows far earlier.

Tolerance: 'none' is elementwise (K = 1). For 'mean' and 'sum', K = `reduce` is the element
count; the terms are non-negative, so a blocked float32 sum has a relative error of a few eps,
within the relative tolerance; `scale` is 1/K for 'mean' and 1 for 'sum'.
"""

import torch


def soft_margin_loss(self: torch.Tensor, target: torch.Tensor, reduction: int = 1) -> torch.Tensor:
    return torch.ops.aten.soft_margin_loss.default(self, target, reduction)


def soft_margin_loss_out(self: torch.Tensor, target: torch.Tensor, reduction: int = 1, *,
                         out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.soft_margin_loss.out(self, target, reduction, out=out)
