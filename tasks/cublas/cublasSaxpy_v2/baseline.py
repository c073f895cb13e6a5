"""cublasSaxpy_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    cublas.call("cublasSaxpy_v2", n, cublas.scalar("S", alpha), x, incx, y, incy)
