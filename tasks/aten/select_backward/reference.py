"""Reference for aten::select_backward: torch eager, run by the worker on a float64 copy of
`grad_output` (values) and on the native input (output dtype and the GPU baseline).

The gradient of `select(input, dim, index)`: a tensor of shape `input_sizes` that is zero
everywhere except the slice at `index` along `dim`, which holds grad_output.

Tolerance: the values are copies or zeros, so the multipliers are 1e-6 (exact in effect).
"""

import torch


def select_backward(grad_output: torch.Tensor, input_sizes: list, dim: int,
                    index: int) -> torch.Tensor:
    return torch.ops.aten.select_backward(grad_output, input_sizes, dim, index)


def select_backward_out(grad_output: torch.Tensor, input_sizes: list, dim: int, index: int, *,
                        out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.select_backward.out(grad_output, input_sizes, dim, index, out=out)
