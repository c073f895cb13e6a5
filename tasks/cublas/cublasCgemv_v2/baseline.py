"""cublasCgemv_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasCgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    cublas.call("cublasCgemv_v2", cublas.enum(trans), m, n, cublas.scalar("C", alpha), A, lda,
                x, incx, cublas.scalar("C", beta), y, incy)
