"""cublasDgemmBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the lists of
tensors become device arrays of pointers."""

from runtime import cublas


def cublasDgemmBatched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
       batchCount):
    cublas.call("cublasDgemmBatched", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("D", alpha), Aarray, lda, Barray, ldb, cublas.scalar("D", beta),
                Carray, ldc, batchCount)
