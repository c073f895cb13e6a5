"""cublasZswap_v2: exchange x and y over n elements of strided complex128 vectors."""

from runtime.blas import get_vec, set_vec


def cublasZswap_v2(n, x, incx, y, incy):
    if n <= 0:
        return None
    old_x = get_vec(x, n, incx).clone()  # get_vec may be a view of x: keep the old values
    set_vec(x, n, incx, get_vec(y, n, incy))
    set_vec(y, n, incy, old_x)
    return None
