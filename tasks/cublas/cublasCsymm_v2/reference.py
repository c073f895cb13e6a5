"""cublasCsymm_v2: C = alpha * A B + beta * C (side LEFT) or alpha * B A + beta * C (side
RIGHT), A complex symmetric (not Hermitian) and read from its uplo triangle only."""

from runtime.blas import LEFT, mat, symmetric


def cublasCsymm_v2(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    if m <= 0 or n <= 0:
        return None
    ka = m if side == LEFT else n
    s = symmetric(mat(A, ka, ka, lda), uplo)
    b = mat(B, m, n, ldb)
    c = mat(C, m, n, ldc)
    prod = s @ b if side == LEFT else b @ s
    c.copy_(alpha * prod if beta == 0 else alpha * prod + beta * c)  # beta == 0: C unread
    return None
