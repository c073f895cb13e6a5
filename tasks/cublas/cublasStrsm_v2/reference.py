"""cublasStrsm_v2: solve op(A) X = alpha B (side LEFT) or X op(A) = alpha B (side RIGHT) with A
triangular (only its uplo triangle read, its diagonal not at all when diag is UNIT); X
overwrites B."""

import torch

from runtime.blas import LEFT, OP_N, UNIT, UPPER, mat, op, triangle


def cublasStrsm_v2(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    if m <= 0 or n <= 0:
        return None
    ka = m if side == LEFT else n
    opa = op(triangle(mat(A, ka, ka, lda), uplo, diag == UNIT), trans)
    upper = (uplo == UPPER) == (trans == OP_N)  # op(A) is upper triangular
    b = mat(B, m, n, ldb)
    b.copy_(torch.linalg.solve_triangular(opa, alpha * b, upper=upper, left=(side == LEFT)))
    return None
