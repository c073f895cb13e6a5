"""cublasDaxpy_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasDaxpy_v2(n, alpha, x, incx, y, incy):
    cublas.call("cublasDaxpy_v2", n, cublas.scalar("D", alpha), x, incx, y, incy)
