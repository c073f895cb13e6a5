"""cublasDsyr2_v2: A = alpha * (x y^T + y x^T) + A on the uplo triangle of a column-major A."""

import torch

from runtime.blas import get_vec, mat, write_triangle


def cublasDsyr2_v2(uplo, n, alpha, x, incx, y, incy, A, lda):
    if n <= 0:
        return None
    a = mat(A, n, n, lda)
    xv, yv = get_vec(x, n, incx), get_vec(y, n, incy)
    write_triangle(a, alpha * (torch.outer(xv, yv) + torch.outer(yv, xv)) + a, uplo)
    return None
