"""cublasCgemv_v2: y = alpha * op(A) x + beta * y for a column-major complex m x n matrix A."""

from runtime.blas import OP_N, get_vec, mat, op, set_vec


def cublasCgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    if m <= 0 or n <= 0:
        return None
    lx, ly = (n, m) if trans == OP_N else (m, n)
    r = alpha * (op(mat(A, m, n, lda), trans) @ get_vec(x, lx, incx))
    if beta != 0:  # beta == 0: y is not read
        r = r + beta * get_vec(y, ly, incy)
    set_vec(y, ly, incy, r)
    return None
