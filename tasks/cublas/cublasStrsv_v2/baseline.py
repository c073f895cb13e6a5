"""cublasStrsv_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasStrsv_v2(uplo, trans, diag, n, A, lda, x, incx):
    cublas.call("cublasStrsv_v2", cublas.enum(uplo), cublas.enum(trans), cublas.enum(diag), n,
                A, lda, x, incx)
