"""Reference for aten::stack: torch eager, run by the worker on float64 copies of the floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

stack joins equally shaped tensors along a new dimension inserted at `dim` (which ranges over
the result's dims, so -1 or nd appends it last): result.select(dim, i) == tensors[i]. The
result dtype is the promoted dtype of the inputs (float16 + float32 + bfloat16 -> float32;
int32 + float16 + bool -> float16); 0-d inputs give a 1-d result.

The float64 copies leave int32 and bool inputs as they are; promotion then gives float64, whose
values are the exact ones (every input value is exactly representable in the result dtype of
these cases).

Tolerance: the output values are copies (or exact conversions), so both entries scale the
tolerance by 1e-6 (the format requires positive multipliers), which is exact in effect.
"""

import torch


def stack(tensors: list[torch.Tensor], dim: int = 0) -> torch.Tensor:
    return torch.stack(tensors, dim)


def stack_out(tensors: list[torch.Tensor], dim: int = 0, *, out: torch.Tensor) -> torch.Tensor:
    return torch.stack(tensors, dim, out=out)
