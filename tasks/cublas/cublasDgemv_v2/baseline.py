"""cublasDgemv_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasDgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    cublas.call("cublasDgemv_v2", cublas.enum(trans), m, n, cublas.scalar("D", alpha), A, lda,
                x, incx, cublas.scalar("D", beta), y, incy)
