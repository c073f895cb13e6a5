"""cublasDsbmv_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasDsbmv_v2(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    cublas.call("cublasDsbmv_v2", cublas.enum(uplo), n, k, cublas.scalar("D", alpha), A, lda, x,
                incx, cublas.scalar("D", beta), y, incy)
