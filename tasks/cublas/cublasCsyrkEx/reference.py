"""cublasCsyrkEx: C = alpha * op(A) op(A)^T + beta * C (complex symmetric: transposes, no
conjugation) on the uplo triangle of the n x n C; A and C complex64 (Atype = Ctype =
CUDA_C_32F)."""

import torch

from runtime.blas import OP_N, mat, op, write_triangle


def cublasCsyrkEx(uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc):
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
