"""Reference for aten::log10: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype and the GPU baseline).

log10(x) elementwise: NaN for x < 0 and for NaN, -inf for ±0, +inf for +inf. Floating inputs
keep their dtype; integer inputs promote to float32 (the int32 cases are not converted by the
worker, so their reference is torch's own float32 result, computed from the input rounded to
float32, which is also what the candidate is asked to do). `out_dtype` is the result dtype, so
the int32 cases get the float32 tolerance rather than an exact comparison. Near x = 1 the result
approaches 0 and a float32 log loses relative accuracy; the absolute floor of the tolerance
(1e-6 for float32) covers that, as it does for torch.
"""

import torch


def log10(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.log10.default(self)


def log10_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.log10.out(self, out=out)
