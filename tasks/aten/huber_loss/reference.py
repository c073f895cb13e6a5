"""Reference for aten::huber_loss: torch eager, run by the worker on float64 copies (values) and
on the native inputs (output dtype and the GPU baseline).

With z = |self - target| (broadcast), the loss is 0.5 * z**2 where z < delta and
delta * (z - 0.5 * delta) elsewhere; reduction 0 ('none') returns it elementwise, 1 ('mean')
its mean as a 0-d tensor (NaN for no elements), 2 ('sum') its sum (0 for no elements).
huber_loss.out writes the same result into `out` and returns it.

Tolerance: 'none' is elementwise (K = 1). For 'mean' and 'sum', K = `reduce` is the element
count; every term is non-negative, so there is no cancellation and the float32 accumulation
error of a blocked (tree-like) sum is a small multiple of eps relative to the result, which the
relative tolerance covers; `scale` is 1/K for 'mean' (as in the mean task) and 1 for 'sum'.
"""

import torch


def huber_loss(self: torch.Tensor, target: torch.Tensor, reduction: int = 1,
               delta: float = 1.0) -> torch.Tensor:
    return torch.ops.aten.huber_loss.default(self, target, reduction, delta)


def huber_loss_out(self: torch.Tensor, target: torch.Tensor, reduction: int = 1,
                   delta: float = 1.0, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.huber_loss.out(self, target, reduction, delta, out=out)
