"""cublasDasum_v2: sum |x[i]| over a strided real vector; 0 for n <= 0 or incx <= 0 (BLAS)."""

import torch

from runtime.blas import get_vec


def cublasDasum_v2(n, x, incx):
    if n <= 0 or incx <= 0:
        return torch.zeros((), dtype=x.dtype, device=x.device)
    return get_vec(x, n, incx).abs().sum()
