"""Reference for aten::reflection_pad1d_backward: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

grad_input[..., j] = sum of grad_output[..., o] over the padded positions o that reflection
padding fills from input position j (j itself and its mirrors in the left and right pads).
`self` only supplies the input shape.
"""

import torch


def reflection_pad1d_backward(grad_output: torch.Tensor, self: torch.Tensor,
                              padding) -> torch.Tensor:
    return torch.ops.aten.reflection_pad1d_backward(grad_output, self, padding)


def reflection_pad1d_backward_grad_input(grad_output: torch.Tensor, self: torch.Tensor, padding,
                                         *, grad_input: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.reflection_pad1d_backward.grad_input(grad_output, self, padding,
                                                               grad_input=grad_input)
