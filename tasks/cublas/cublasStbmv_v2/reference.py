"""cublasStbmv_v2: x = op(A) x, A triangular with k off-diagonals in cuBLAS's banded storage
(column j of A in column j of a (k+1) x n array), unit or stored diagonal.

Computed diagonal by diagonal (never as a dense n x n matrix: the timed cases have n = 2^20)."""

import torch

from runtime.blas import LOWER, OP_N, UNIT, get_vec, mat, set_vec


def cublasStbmv_v2(uplo, trans, diag, n, k, A, lda, x, incx):
    if n <= 0:
        return None
    band = mat(A, k + 1, n, lda)
    v = get_vec(x, n, incx)
    r = torch.zeros(n, dtype=v.dtype, device=v.device)
    for d in range(0, min(k, n - 1) + 1):
        if d == 0 and diag == UNIT:  # the diagonal is ones and is not read
            r = r + v
            continue
        if uplo == LOWER:  # A[j+d, j] at band row d, column j (j = 0 .. n-1-d)
            a = band[d, :n - d]
            lo_row = trans != OP_N  # op(A)[j+d, j] = A[j+d, j] for N; op(A)[j, j+d] for T
        else:  # A[j, j+d] at band row k-d, column j+d (j = 0 .. n-1-d)
            a = band[k - d, d:]
            lo_row = trans == OP_N  # op(A)[j, j+d] for N; op(A)[j+d, j] for T
        if lo_row:  # the element sits in row j, column j+d of op(A)
            r[:n - d] += a * v[d:]
        else:  # row j+d, column j
            r[d:] += a * v[:n - d]
    set_vec(x, n, incx, r)
    return None
