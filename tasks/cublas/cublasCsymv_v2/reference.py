"""cublasCsymv_v2: y = alpha * A x + beta * y, A complex symmetric (no conjugation), only the
uplo triangle of A read."""

from runtime.blas import get_vec, mat, set_vec, symmetric


def cublasCsymv_v2(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    if n <= 0:
        return None
    r = alpha * (symmetric(mat(A, n, n, lda), uplo) @ get_vec(x, n, incx))
    if beta != 0:  # beta == 0: y is not read
        r = r + beta * get_vec(y, n, incy)
    set_vec(y, n, incy, r)
    return None
