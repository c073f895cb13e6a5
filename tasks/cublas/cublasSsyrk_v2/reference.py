"""cublasSsyrk_v2: C = alpha * op(A) op(A)^T + beta * C for symmetric n x n C, of which only the
uplo triangle is read and written."""

import torch

from runtime.blas import OP_N, mat, op, write_triangle


def cublasSsyrk_v2(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    if n <= 0:
        return None
    ra, ca = (n, k) if trans == OP_N else (k, n)
    c = mat(C, n, n, ldc)
    if k > 0:
        a = op(mat(A, ra, ca, lda), trans)
        prod = a @ a.transpose(0, 1)
    else:
        prod = torch.zeros_like(c)
    new = alpha * prod if beta == 0 else alpha * prod + beta * c  # beta == 0: C unread
    write_triangle(c, new, uplo)
    return None
