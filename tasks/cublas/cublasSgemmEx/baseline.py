"""cublasSgemmEx itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSgemmEx(transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,
                  ldc):
    cublas.call("cublasSgemmEx", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("S", alpha), A, cublas.enum(Atype), lda, B, cublas.enum(Btype),
                ldb, cublas.scalar("S", beta), C, cublas.enum(Ctype), ldc)
