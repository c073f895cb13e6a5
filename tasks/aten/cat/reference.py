"""Reference for aten::cat: torch eager, run by the worker on float64 copies of the floating
inputs (values) and on the native inputs (output dtype and the GPU baseline).

cat joins the tensors along `dim`: all must have the same number of dims and the same sizes
except along `dim`; the result's size along `dim` is the sum. The result dtype is the promoted
dtype of all inputs (float16 + float32 + bfloat16 -> float32; int32 + float16 + bool ->
float16). Legacy rule: a 1-D tensor of shape [0] is skipped whatever the others look like.

The float64 copies leave int32 and bool inputs as they are; promotion then gives float64, whose
values are the exact ones (every input value is exactly representable in the result dtype of
these cases).

Tolerance: the output values are copies (or exact conversions), so both entries scale the
tolerance by 1e-6 (the format requires positive multipliers), which is exact in effect.
"""

import torch


def cat(tensors: list[torch.Tensor], dim: int = 0) -> torch.Tensor:
    return torch.cat(tensors, dim)


def cat_out(tensors: list[torch.Tensor], dim: int = 0, *, out: torch.Tensor) -> torch.Tensor:
    return torch.cat(tensors, dim, out=out)
