"""Reference for aten::softmax.int: torch eager, run by the worker on float64 copies (values) and
on the native inputs (output dtype and the GPU baseline).

softmax(x, dim)[i] = exp(x_i - max) / sum_j exp(x_j - max) along `dim`; `dtype` is None in this
task, so the result keeps the input's dtype.

Tolerance: the outputs are n terms of magnitude about 1/n (n = length of `dim`) that sum to 1;
the float32 error of the normalising sum reaches each output as a relative error of order
eps*sqrt(n), i.e. an absolute error of order eps*sqrt(n)*(1/n). So `reduce` is n and `scale` is
1/n (1 for an empty dimension), which keeps the allowed absolute error proportional to the
outputs' size instead of to 1.
"""

import torch


def softmax_int(self: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.ops.aten.softmax.int(self, dim, dtype)
