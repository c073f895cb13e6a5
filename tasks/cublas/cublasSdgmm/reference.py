"""cublasSdgmm: C = diag(x) * A (mode LEFT) or A * diag(x) (mode RIGHT), column-major m x n."""

from runtime.blas import LEFT, RIGHT, get_vec, mat


def cublasSdgmm(mode, m, n, A, lda, x, incx, C, ldc):
    if m <= 0 or n <= 0:
        return None
    a = mat(A, m, n, lda)
    c = mat(C, m, n, ldc)
    if mode == LEFT:
        c.copy_(get_vec(x, m, incx)[:, None] * a)  # get_vec: incx = 0 repeats x[0]
    elif mode == RIGHT:
        c.copy_(a * get_vec(x, n, incx)[None, :])
    else:
        raise ValueError(f"invalid cublasSideMode_t {mode}")
    return None
