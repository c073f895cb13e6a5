"""cublasDcopy_v2: y = x over n elements of strided float64 vectors (BLAS increments)."""

from runtime.blas import get_vec, set_vec


def cublasDcopy_v2(n, x, incx, y, incy):
    if n <= 0:
        return None
    set_vec(y, n, incy, get_vec(x, n, incx))
    return None
