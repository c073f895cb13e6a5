"""Reference for aten::softplus_backward: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

softplus(x) = log(1 + exp(beta * x)) / beta, replaced by x where beta * x > threshold; its
backward is grad_output where beta * x > threshold and grad_output * sigmoid(beta * x)
elsewhere, elementwise.

The branch test compares beta * x with threshold. The tests use powers of two for beta, so
beta * x is exact in float32 as in float64 and the branch taken does not depend on the
precision of the reference (with another beta the product could round across the threshold,
where the result jumps).

Tolerance: elementwise, the default one.
"""

import torch


def softplus_backward(grad_output: torch.Tensor, self: torch.Tensor, beta,
                      threshold) -> torch.Tensor:
    return torch.ops.aten.softplus_backward.default(grad_output, self, beta, threshold)


def softplus_backward_grad_input(grad_output: torch.Tensor, self: torch.Tensor, beta, threshold,
                                 *, grad_input: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.softplus_backward.grad_input(grad_output, self, beta, threshold,
                                                       grad_input=grad_input)
