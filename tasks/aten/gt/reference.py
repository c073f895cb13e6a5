"""Reference for aten::gt: torch eager on the native inputs (reference_precision "native").

out = (self > other) elementwise, a bool tensor of the broadcast shape (or written into `out`,
converted to out's dtype). The comparison happens in the common dtype of the operands
(torch.result_type): a float16 tensor against a 0-d float32 tensor, or against the Python float
0.3, compares in float16, i.e. after rounding the other operand to float16. 0.3 rounds up in
float16, bfloat16 and float32, so an element holding the rounded value is not greater than the
scalar natively but is greater than the exact 0.3 of a float64 reference: running the reference
on float64 copies would change the answer, so it runs in the native dtypes. No rounding happens
in the comparison itself, so the native result is exact; bool outputs are compared exactly (a
float32 `out` holds exactly 0 or 1).
"""

import torch


def gt_Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.gt.Tensor(self, other)


def gt_Scalar(self: torch.Tensor, other) -> torch.Tensor:
    return torch.ops.aten.gt.Scalar(self, other)


def gt_Tensor_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.gt.Tensor_out(self, other, out=out)


def gt_Scalar_out(self: torch.Tensor, other, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.gt.Scalar_out(self, other, out=out)
