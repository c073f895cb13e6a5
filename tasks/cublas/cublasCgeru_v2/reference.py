"""cublasCgeru_v2: A = alpha * x y^T + A (no conjugation) for a column-major complex matrix A."""

import torch

from runtime.blas import get_vec, mat


def cublasCgeru_v2(m, n, alpha, x, incx, y, incy, A, lda):
    if m <= 0 or n <= 0:
        return None
    a = mat(A, m, n, lda)
    a.copy_(alpha * torch.outer(get_vec(x, m, incx), get_vec(y, n, incy)) + a)
    return None
