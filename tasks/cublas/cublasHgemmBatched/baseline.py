"""cublasHgemmBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the lists of
tensors become device arrays of pointers."""

from runtime import cublas


def cublasHgemmBatched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
       batchCount):
    cublas.call("cublasHgemmBatched", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("H", alpha), Aarray, lda, Barray, ldb, cublas.scalar("H", beta),
                Carray, ldc, batchCount)
