"""Reference for aten::_softmax: torch eager, run by the worker on float64 copies (values) and on
the native inputs (output dtype and the GPU baseline).

_softmax(x, dim, half_to_float)[i] = exp(x_i - max) / sum_j exp(x_j - max) along `dim`. With
half_to_float=False the result has the input's dtype; with half_to_float=True (valid for a
float16 input only) the result is float32: the float16 input is read, computed in float32 and
written as float32. NaN or +inf in a slice makes that whole slice NaN, -inf gives 0, and a slice
that is all -inf is NaN (0/0).

The CPU kernel rejects half_to_float=True ("not supported on CPU"), so off CUDA the reference
converts the float16 input to float32 (exact) and runs the plain kernel, which is what the CUDA
kernel computes. On the float64 copies the flag only changes the output dtype, which the
baseline (native inputs) fixes anyway, so the values are computed in float64 throughout.

Tolerance (as for softmax): each output is one of n terms of magnitude about 1/n that sum to 1;
the float32 error of the normalising sum reaches an output as a relative error of order
eps*sqrt(n), i.e. an absolute one of order eps*sqrt(n)/n. So `reduce` is n and `scale` is 1/n
(1 for an empty dim). The half_to_float cases are checked against float32's tolerance, which a
float32 computation from the float16 input meets and a float16 intermediate does not.
"""

import torch


def _softmax(self: torch.Tensor, dim: int, half_to_float: bool) -> torch.Tensor:
    if half_to_float and self.dtype != torch.float64 and self.device.type != "cuda":
        return torch.ops.aten._softmax(self.to(torch.float32), dim, False)
    if self.dtype == torch.float64:
        half_to_float = False
    return torch.ops.aten._softmax(self, dim, half_to_float)


def _softmax_out(self: torch.Tensor, dim: int, half_to_float: bool, *,
                 out: torch.Tensor) -> torch.Tensor:
    # torch.ops.aten._softmax.out on the CPU writes a non-contiguous `out` as if it were
    # contiguous (torch 2.13: a transposed `out` gets scrambled values), so the reference
    # computes the result and copies it into `out` through its strides.
    out.copy_(_softmax(self, dim, half_to_float))
    return out
