"""Reference for aten::diff: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

diff(self, n, dim, prepend, append): z = cat(prepend, self, append) along `dim`, then the first
forward difference z[i + 1] - z[i] applied n times, so the result has length
max(len(z) - n, 0) along `dim`. n = 0 returns self unchanged (prepend and append are then
ignored). Bool tensors use logical xor instead of subtraction; int32 differences are exact and
wrap. The result dtype is self's (all inputs share one dtype here).

Tolerance: the n-th difference is sum_k (-1)^(n-k) C(n, k) z[i + k], n + 1 terms whose partial
sums are bounded by 2^n times the inputs' magnitude (unit normal here), so `reduce` is n + 1
and `scale` is 2^n: float32 arithmetic in any order (repeated differences, or the binomial sum)
passes. The float64 reference has no intermediate rounding; rounding every intermediate
difference to the 16-bit type does not pass. torch's eager kernel does exactly that for n > 1,
so its own float16/bfloat16 results exceed the tolerance there (base_tol_use of tens to
hundreds): the task asks for float32 arithmetic, as the prompt says. Integer and bool outputs
are exact.

Inputs: unit normal floats, int32 uniform in [-1000, 1000), bool fair coin; prepend holds the
special values (inf, -inf, nan, +-0 among normal values) for the floating dtypes.

prepend and append are always tensors in this task (possibly of length 0 along `dim`, which is
the same as None): the task format cannot make one argument a tensor in some cases and None in
others.
"""

import torch


def diff(self: torch.Tensor, n: int = 1, dim: int = -1, prepend: torch.Tensor | None = None,
         append: torch.Tensor | None = None) -> torch.Tensor:
    return torch.diff(self, n, dim, prepend, append)


def diff_out(self: torch.Tensor, n: int = 1, dim: int = -1,
             prepend: torch.Tensor | None = None, append: torch.Tensor | None = None, *,
             out: torch.Tensor) -> torch.Tensor:
    return torch.diff(self, n, dim, prepend, append, out=out)
