"""cublasSscal_v2: x = alpha * x over n elements of a strided vector (BLAS increment > 0)."""

from runtime.blas import get_vec, set_vec


def cublasSscal_v2(n, alpha, x, incx):
    if n <= 0 or incx <= 0:
        return None
    set_vec(x, n, incx, alpha * get_vec(x, n, incx))
    return None
