"""cublasSscal_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSscal_v2(n, alpha, x, incx):
    cublas.call("cublasSscal_v2", n, cublas.scalar("S", alpha), x, incx)
