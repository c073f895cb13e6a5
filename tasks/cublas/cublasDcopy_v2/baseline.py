"""cublasDcopy_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasDcopy_v2(n, x, incx, y, incy):
    cublas.call("cublasDcopy_v2", n, x, incx, y, incy)
