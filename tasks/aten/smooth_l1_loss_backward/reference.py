"""Reference for aten::smooth_l1_loss_backward: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

The gradient of smooth_l1_loss (0.5 * x**2 / beta for |x| < beta, |x| - 0.5 * beta otherwise,
x = self - target) with respect to self: with norm = 1 / self.numel() for reduction 1 ('mean')
and 1 for 0 ('none') and 2 ('sum'), grad_input = norm * grad_output * s, where s = -1 for
x <= -beta, 1 for x >= beta and x / beta between. grad_output has self's shape for 'none' and is
0-d for 'mean' and 'sum'; it broadcasts. With beta = 0 the middle branch is empty and x = 0 takes
the first one (-1), as torch's comparisons order it.

For 'mean' the 0-d grad_output is drawn with standard deviation 1000, so that the gradient
(1000 / numel per unit of s) stays well above the absolute tolerance floor on a million
elements; the upstream gradient of a mean loss is any number.

Tolerance: elementwise, the default one.
"""

import torch


def smooth_l1_loss_backward(grad_output: torch.Tensor, self: torch.Tensor, target: torch.Tensor,
                            reduction: int, beta: float) -> torch.Tensor:
    return torch.ops.aten.smooth_l1_loss_backward.default(grad_output, self, target, reduction,
                                                          beta)


def smooth_l1_loss_backward_grad_input(grad_output: torch.Tensor, self: torch.Tensor,
                                       target: torch.Tensor, reduction: int, beta: float, *,
                                       grad_input: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.smooth_l1_loss_backward.grad_input(grad_output, self, target,
                                                             reduction, beta,
                                                             grad_input=grad_input)
