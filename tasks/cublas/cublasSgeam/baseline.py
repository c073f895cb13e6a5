"""cublasSgeam itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSgeam(transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    cublas.call("cublasSgeam", cublas.enum(transa), cublas.enum(transb), m, n,
                cublas.scalar("S", alpha), A, lda, cublas.scalar("S", beta), B, ldb, C, ldc)
