"""Reference for aten::sort: torch eager, run by the worker on a float64 copy of a floating
`self` (values) and on the native inputs (output dtypes and the GPU baseline).

Returns (values, indices): `self` sorted along `dim` (ascending, or descending), NaN ordered
after +inf (first when descending), and the int64 positions along `dim` the values came from.
The float64 copy holds exactly the values of the low-precision input, so ties (and their stable
order) are the same in both runs.

Soundness of the indices check: indices are compared exactly, which is only sound when the
order among equal keys is determined. Every case with ties (float16/bfloat16/float32/int32/bool,
`special` values with repeated NaN, inf and zeros) runs with stable=True, where the order is
the original one. Cases whose order is unspecified (sort, sort.values, and stable=False/None)
draw float64 normal values or int64 values from a range of 2**62, so ties occur with
probability below 1e-9 and every correct sort gives the same indices.

NaN inputs are all the dtype's canonical quiet NaN (runtime/inputs.py makes them so): torch's
CUDA sort orders NaNs by their bits (radix sort of long rows puts sign-bit NaNs before -inf;
the sort of short rows puts 0x7FC0 before 0x7FFF), so with other NaNs the GPU reference would
not follow the rule above.

Tolerance: the values are copies, so both multipliers are 1e-6 (the format requires positive
ones), which is exact in effect; indices are int64 and compared exactly.
"""

import torch


def sort(self: torch.Tensor, dim: int = -1, descending: bool = False):
    return torch.sort(self, dim=dim, descending=descending)


def sort_stable(self: torch.Tensor, *, stable, dim: int = -1, descending: bool = False):
    return torch.sort(self, stable=stable, dim=dim, descending=descending)


def sort_values_stable(self: torch.Tensor, *, stable, dim: int = -1, descending: bool = False,
                       values: torch.Tensor, indices: torch.Tensor):
    return torch.sort(self, stable=stable, dim=dim, descending=descending,
                      out=(values, indices))


def sort_values(self: torch.Tensor, dim: int = -1, descending: bool = False, *,
                values: torch.Tensor, indices: torch.Tensor):
    return torch.sort(self, dim=dim, descending=descending, out=(values, indices))
