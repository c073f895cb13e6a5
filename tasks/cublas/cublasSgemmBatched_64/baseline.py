"""cublasSgemmBatched_64 itself, from the cuBLAS library torch loaded (runtime/cublas.py); the lists of
tensors become device arrays of pointers."""

from runtime import cublas


def cublasSgemmBatched_64(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
       batchCount):
    cublas.call("cublasSgemmBatched_64", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("S", alpha), Aarray, lda, Barray, ldb, cublas.scalar("S", beta),
                Carray, ldc, batchCount)
