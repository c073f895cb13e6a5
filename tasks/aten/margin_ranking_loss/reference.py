"""Reference for aten::margin_ranking_loss: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

Elementwise loss max(0, -target * (input1 - input2) + margin) over the broadcast shape of the
three inputs (NaN propagates through the max); reduction 0 returns it, 1 its mean over all
elements as a 0-d tensor (NaN for no elements), 2 its sum (0 for no elements). Targets are drawn
from {-1, 0, 1}.

Tolerance: near the hinge, margin - t * (input1 - input2) cancels terms of the inputs' size, so
float32 evaluation leaves an absolute error of a few eps times that size on results near 0 (as
any float32 implementation, torch's included, does). `scale` is the inputs' standard deviation
(times 1/K for 'mean', with K = `reduce` the element count), which admits that error; the sums of
'mean' and 'sum' add non-negative terms, whose blocked float32 error the relative tolerance
covers.
"""

import torch


def margin_ranking_loss(input1: torch.Tensor, input2: torch.Tensor, target: torch.Tensor,
                        margin: float = 0.0, reduction: int = 1) -> torch.Tensor:
    return torch.ops.aten.margin_ranking_loss.default(input1, input2, target, margin, reduction)
