"""cublasZdotc_v2: the conjugated dot product sum conj(x[i]) * y[i] of two strided complex vectors."""

import torch

from runtime.blas import get_vec


def cublasZdotc_v2(n, x, incx, y, incy):
    if n <= 0:
        return torch.zeros((), dtype=x.dtype, device=x.device)
    return (get_vec(x, n, incx).conj() * get_vec(y, n, incy)).sum()
