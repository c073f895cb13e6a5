"""Reference for aten::upsample_nearest2d_backward: torch eager, run by the worker on float64
copies (values) and on the native inputs (output dtype and the GPU baseline).

grad_input[n, c, i, j] = sum of grad_output[n, c, o, p] over the output pixels (o, p) whose
nearest source pixel in the forward pass is (i, j).
"""

import torch


def upsample_nearest2d_backward(grad_output: torch.Tensor, output_size, input_size,
                                scales_h=None, scales_w=None) -> torch.Tensor:
    return torch.ops.aten.upsample_nearest2d_backward(grad_output, output_size, input_size,
                                                      scales_h, scales_w)


def upsample_nearest2d_backward_grad_input(grad_output: torch.Tensor, output_size, input_size,
                                           scales_h=None, scales_w=None, *,
                                           grad_input: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.upsample_nearest2d_backward.grad_input(
        grad_output, output_size, input_size, scales_h, scales_w, grad_input=grad_input)
