"""cublasSdgmm itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


def cublasSdgmm(mode, m, n, A, lda, x, incx, C, ldc):
    cublas.call("cublasSdgmm", cublas.enum(mode), m, n, A, lda, x, incx, C, ldc)
