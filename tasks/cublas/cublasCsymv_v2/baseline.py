"""cublasCsymv_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasCsymv_v2(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    cublas.call("cublasCsymv_v2", cublas.enum(uplo), n, cublas.scalar("C", alpha), A, lda, x,
                incx, cublas.scalar("C", beta), y, incy)
