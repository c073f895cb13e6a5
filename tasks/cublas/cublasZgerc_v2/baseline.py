"""cublasZgerc_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasZgerc_v2(m, n, alpha, x, incx, y, incy, A, lda):
    cublas.call("cublasZgerc_v2", m, n, cublas.scalar("Z", alpha), x, incx, y, incy, A, lda)
