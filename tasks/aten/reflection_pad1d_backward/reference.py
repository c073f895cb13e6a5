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
    # Not the .grad_input overload itself: ATen's CUDA kernel writes grad_input as if it were
    # contiguous (its meta function requests no strides, so no contiguous proxy is made), and
    # with a transposed or strided grad_input it scatters the values to the wrong places (H200,
    # torch 2.11: bench/results/h200-2026-12-03d). out= means the functional result stored
    # into grad_input through its strides, which is this.
    grad_input.copy_(torch.ops.aten.reflection_pad1d_backward(grad_output, self, padding))
    return grad_input
