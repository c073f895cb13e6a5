"""cublasSgeam: C = alpha * op(A) + beta * op(B), column-major m x n; C is write-only."""

from runtime.blas import OP_N, mat, op


def _operand(buf, trans, m, n, ld):
    """op(X) as an m x n view: X is stored m x n for OP_N and n x m otherwise."""
    rows, cols = (m, n) if trans == OP_N else (n, m)
    return op(mat(buf, rows, cols, ld), trans)


def cublasSgeam(transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    if m <= 0 or n <= 0:
        return None
    c = mat(C, m, n, ldc)
    a = _operand(A, transa, m, n, lda)
    b = _operand(B, transb, m, n, ldb)
    if alpha != 0 and beta != 0:
        c.copy_(alpha * a + beta * b)
    elif alpha != 0:  # beta = 0: B does not contribute
        c.copy_(alpha * a)
    elif beta != 0:  # alpha = 0: A does not contribute
        c.copy_(beta * b)
    else:
        c.zero_()
    return None
