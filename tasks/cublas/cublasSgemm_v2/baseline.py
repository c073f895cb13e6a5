"""cublasSgemm_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    cublas.call("cublasSgemm_v2", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("S", alpha), A, lda, B, ldb, cublas.scalar("S", beta), C,
                ldc)
