"""Reference for aten::_local_scalar_dense (the kernel behind Tensor.item()): the ATen op through
torch.ops.aten. The worker runs it on a float64/complex128 copy of a floating `self` (the value;
the float16/bfloat16/float32 value is exact in float64) and on the native input (the Python
type: float, int, bool or complex)."""

import torch


def _local_scalar_dense(self: torch.Tensor):
    return torch.ops.aten._local_scalar_dense.default(self)
