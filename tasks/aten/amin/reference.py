"""Reference for aten::amin: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

amin: the minimum over the listed dims (an empty list: over every dim), keepdim keeping them as
size 1; the result has the input's dtype. NaN propagates (a NaN among the reduced elements gives
NaN). Reducing a dimension of size 0 is an error in torch, so empty inputs are only tested with
non-empty reduced dims (the result is then empty).

Tolerance: a minimum is one of the inputs, exactly; float64 copies of 16-bit or float32 values
are exact, so the reference values are the true minima and any candidate that compares in
float32 (or the native type) returns them bit for bit. Both entries therefore scale the
adaptive tolerance by 1e-6 (the format requires positive multipliers), which makes the float
comparison exact in effect: a neighbouring input value, or a minimum rounded through another
type, fails. Integer outputs are compared exactly anyway.
"""

import torch


def amin(self: torch.Tensor, dim: list[int] = (), keepdim: bool = False) -> torch.Tensor:
    return torch.amin(self, list(dim), keepdim)


def amin_out(self: torch.Tensor, dim: list[int] = (), keepdim: bool = False, *,
             out: torch.Tensor) -> torch.Tensor:
    return torch.amin(self, list(dim), keepdim, out=out)
