"""cublasZtrsmBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the lists of
tensors become device arrays of pointers."""

from runtime import cublas


def cublasZtrsmBatched(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount):
    cublas.call("cublasZtrsmBatched", cublas.enum(side), cublas.enum(uplo), cublas.enum(trans),
                cublas.enum(diag), m, n, cublas.scalar("Z", alpha), A, lda, B, ldb, batchCount)
