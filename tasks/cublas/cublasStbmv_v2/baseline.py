"""cublasStbmv_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasStbmv_v2(uplo, trans, diag, n, k, A, lda, x, incx):
    cublas.call("cublasStbmv_v2", cublas.enum(uplo), cublas.enum(trans), cublas.enum(diag), n, k,
                A, lda, x, incx)
