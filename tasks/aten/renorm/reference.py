"""Reference for aten::renorm: torch eager, run by the worker on float64 copies (values) and on
the native inputs (output dtype and the GPU baseline).

For every index s along `dim`, the slice self.select(dim, s) is scaled by
maxnorm / (norm + 1e-7) when its p-norm (over all its elements) exceeds maxnorm, else copied.
"""

import torch


def renorm(self: torch.Tensor, p, dim: int, maxnorm) -> torch.Tensor:
    return torch.renorm(self, p, dim, maxnorm)


def renorm_out(self: torch.Tensor, p, dim: int, maxnorm, *, out: torch.Tensor) -> torch.Tensor:
    return torch.renorm(self, p, dim, maxnorm, out=out)
