"""cublasDaxpy_v2: y = alpha * x + y over n elements of strided float64 vectors (BLAS increments)."""

from runtime.blas import get_vec, set_vec


def cublasDaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0:
        return None
    set_vec(y, n, incy, alpha * get_vec(x, n, incx) + get_vec(y, n, incy))
    return None
