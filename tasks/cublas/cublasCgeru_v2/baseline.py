"""cublasCgeru_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasCgeru_v2(m, n, alpha, x, incx, y, incy, A, lda):
    cublas.call("cublasCgeru_v2", m, n, cublas.scalar("C", alpha), x, incx, y, incy, A, lda)
