"""cublasSger_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSger_v2(m, n, alpha, x, incx, y, incy, A, lda):
    cublas.call("cublasSger_v2", m, n, cublas.scalar("S", alpha), x, incx, y, incy, A, lda)
