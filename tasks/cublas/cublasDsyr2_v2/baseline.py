"""cublasDsyr2_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasDsyr2_v2(uplo, n, alpha, x, incx, y, incy, A, lda):
    cublas.call("cublasDsyr2_v2", cublas.enum(uplo), n, cublas.scalar("D", alpha), x, incx, y,
                incy, A, lda)
