"""cublasStrsm_v2 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasStrsm_v2(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    cublas.call("cublasStrsm_v2", cublas.enum(side), cublas.enum(uplo), cublas.enum(trans),
                cublas.enum(diag), m, n, cublas.scalar("S", alpha), A, lda, B, ldb)
