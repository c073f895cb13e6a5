"""cublasDsbmv_v2: y = alpha * A x + beta * y, A symmetric with k sub/super-diagonals in cuBLAS's
banded storage (one triangle of the band, column j of A in column j of a (k+1) x n array).

Computed diagonal by diagonal (never as a dense n x n matrix: the timed cases have n = 2^20)."""

import torch

from runtime.blas import LOWER, get_vec, mat, set_vec


def _band_times(A, n, k, lda, uplo, v):
    """A v for the symmetric band matrix that the storage holds."""
    band = mat(A, k + 1, n, lda)
    r = torch.zeros(n, dtype=v.dtype, device=v.device)
    for d in range(0, min(k, n - 1) + 1):
        if uplo == LOWER:  # A[j+d, j] = A[j, j+d] at band row d, column j (j = 0 .. n-1-d)
            a = band[d, :n - d]
        else:  # A[j, j+d] = A[j+d, j] at band row k-d, column j+d
            a = band[k - d, d:]
        r[:n - d] += a * v[d:]  # row j, column j+d
        if d > 0:
            r[d:] += a * v[:n - d]  # row j+d, column j
    return r


def cublasDsbmv_v2(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    if n <= 0:
        return None
    r = alpha * _band_times(A, n, k, lda, uplo, get_vec(x, n, incx))
    if beta != 0:  # beta == 0: y is not read
        r = r + beta * get_vec(y, n, incy)
    set_vec(y, n, incy, r)
    return None
