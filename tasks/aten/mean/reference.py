"""Reference for aten::mean: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

mean: all elements, 0-d result. mean.dim: over the listed dims (None: all), keepdim keeps them
as size 1. The result keeps the input's floating dtype (dtype is None in this task); an empty
reduction gives NaN (0 / 0).

Tolerance: a mean of K terms (K = `reduce`: numel for the full mean, the product of the reduced
sizes for mean.dim) is a sum of K terms x_i / K, each of magnitude 1/K for standard-normal x.
The float32 accumulation error of the sum is of order eps*sqrt(K) in units of the x_i, and the
division by K carries it over unchanged in relative terms, so the mean's absolute error is of
order eps*sqrt(K)*(1/K): `scale` = 1/K (1 when K = 0) states exactly that. A larger scale such
as 1/sqrt(K) (the size of the result itself) would allow errors sqrt(K) times larger than a
float32 accumulation makes; the result's own size is covered by the relative tolerance.
"""

import torch


def mean(self: torch.Tensor, *, dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.ops.aten.mean.default(self, dtype=dtype)


def mean_dim(self: torch.Tensor, dim: list[int] | None, keepdim: bool = False, *,
             dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.ops.aten.mean.dim(self, dim, keepdim, dtype=dtype)
