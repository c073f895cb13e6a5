"""cublasSdot_v2: the dot product sum x[i] * y[i] of two strided real vectors."""

import torch

from runtime.blas import get_vec


def cublasSdot_v2(n, x, incx, y, incy):
    if n <= 0:
        return torch.zeros((), dtype=x.dtype, device=x.device)
    return (get_vec(x, n, incx) * get_vec(y, n, incy)).sum()
