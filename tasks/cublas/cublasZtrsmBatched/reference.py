"""cublasZtrsmBatched: solve op(A[i]) X = alpha B[i] (side LEFT) or X op(A[i]) = alpha B[i] (side RIGHT)
for each i < batchCount, X overwriting B[i]; A[i] is triangular (only its uplo triangle is read,
its diagonal not at all when diag is UNIT). A and B are arrays of pointers (lists of tensors)."""

import torch

from runtime.blas import LEFT, OP_N, UNIT, UPPER, mat, op, triangle


def _trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    if m <= 0 or n <= 0:
        return
    ka = m if side == LEFT else n
    opa = op(triangle(mat(A, ka, ka, lda), uplo, diag == UNIT), trans)
    upper = (uplo == UPPER) == (trans == OP_N)  # op(A) is upper triangular
    b = mat(B, m, n, ldb)
    x = torch.linalg.solve_triangular(opa, alpha * b, upper=upper, left=(side == LEFT))
    b.copy_(x)


def cublasZtrsmBatched(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount):
    for i in range(max(batchCount, 0)):
        _trsm(side, uplo, trans, diag, m, n, alpha, A[i], lda, B[i], ldb)
    return None
