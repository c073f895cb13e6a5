"""Reference for aten::pairwise_distance: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

out = || x1 - x2 + eps ||_p over the last dimension of the broadcast shape (kept with size 1
when keepdim).
"""

import torch


def pairwise_distance(x1: torch.Tensor, x2: torch.Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> torch.Tensor:
    return torch.pairwise_distance(x1, x2, p, eps, keepdim)
