"""cublasCsymm_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasCsymm_v2(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    cublas.call("cublasCsymm_v2", cublas.enum(side), cublas.enum(uplo), m, n,
                cublas.scalar("C", alpha), A, lda, B, ldb, cublas.scalar("C", beta), C, ldc)
