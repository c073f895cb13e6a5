"""Reference for aten::matmul: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

1-D x 1-D is a dot product (0-d result); 2-D x 2-D the matrix product; a 1-D first operand is a
row vector and a 1-D second operand a column vector whose unit dimension is removed from the
result; with more dimensions the leading (batch) dimensions broadcast.
"""

import torch


def matmul(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.matmul(self, other)


def matmul_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.matmul(self, other, out=out)
