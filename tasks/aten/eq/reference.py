"""Reference for aten::eq: torch eager on the native inputs (reference_precision "native").

out = (self == other) elementwise, a bool tensor of the broadcast shape (or written into `out`,
converted to out's dtype). The comparison happens in the common dtype of the operands
(torch.result_type): a float16 tensor against a 0-d float32 tensor, or against the Python float
0.1, compares in float16, i.e. after rounding the other operand to float16. Running the reference
on float64 copies would skip that rounding and change the answer wherever an element equals the
rounded value, so the reference runs in the native dtypes. No rounding happens in the comparison
itself, so the native result is exact; bool outputs are compared exactly (a float32 `out` holds
exactly 0 or 1).
"""

import torch


def eq_Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.eq.Tensor(self, other)


def eq_Scalar(self: torch.Tensor, other) -> torch.Tensor:
    return torch.ops.aten.eq.Scalar(self, other)


def eq_Tensor_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.eq.Tensor_out(self, other, out=out)


def eq_Scalar_out(self: torch.Tensor, other, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.eq.Scalar_out(self, other, out=out)
