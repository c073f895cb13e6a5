"""Reference for aten::rot90: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

Rotation by k * 90 degrees in the plane of `dims`, from the first dim towards the second:
k = 1 is flip(dims[1]) then transpose(dims[0], dims[1]); k is taken modulo 4.

Tolerance: the values are copies, so the entries scale the adaptive tolerance by 1e-6 (the format
requires positive multipliers), which makes the comparison exact in effect.
"""

import torch


def rot90(self: torch.Tensor, k: int = 1, dims=(0, 1)) -> torch.Tensor:
    return torch.rot90(self, k, dims)


def rot90_out(self: torch.Tensor, k: int = 1, dims=(0, 1), *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.rot90.out(self, k, dims, out=out)
