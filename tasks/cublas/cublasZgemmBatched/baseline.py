"""cublasZgemmBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the lists of
tensors become device arrays of pointers."""

from runtime import cublas


def cublasZgemmBatched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
       batchCount):
    cublas.call("cublasZgemmBatched", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("Z", alpha), Aarray, lda, Barray, ldb, cublas.scalar("Z", beta),
                Carray, ldc, batchCount)
