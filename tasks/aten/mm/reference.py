"""Reference for aten::mm: torch eager, run by the worker on float64 copies (values) and on the
native inputs (output dtype and the GPU baseline).

out[i, j] = sum over k of self[i, k] * mat2[k, j]; self is M x K, mat2 is K x N, out is M x N.
"""

import torch


def mm(self: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    return torch.mm(self, mat2)
