"""cublasSsyrk_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSsyrk_v2(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    cublas.call("cublasSsyrk_v2", cublas.enum(uplo), cublas.enum(trans), n, k,
                cublas.scalar("S", alpha), A, lda, cublas.scalar("S", beta), C, ldc)
