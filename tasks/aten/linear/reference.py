"""Reference for aten::linear: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

out = input @ weight^T + bias: input (*, K), weight (N, K), bias (N) or None, out (*, N).

The prompt asks for one rounding (bias added to the float32 accumulator). ATen itself does that
only for a 2-D (or flattenable) input; for a non-contiguous input of 3 or more dimensions it
computes matmul, rounds to float16/bfloat16, then adds the bias and rounds again, so the baseline
can use more than the allowed error on those cases (recorded as base_tol_use); the checker holds
candidates to the single-rounding bound.
"""

import torch


def linear(input: torch.Tensor, weight: torch.Tensor, bias=None) -> torch.Tensor:
    return torch.nn.functional.linear(input, weight, bias)


def linear_out(input: torch.Tensor, weight: torch.Tensor, bias=None, *,
               out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.linear.out(input, weight, bias, out=out)
