"""cublasDgemmStridedBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

import ctypes

from runtime import cublas


# strideA/B/C are `long long int` in C: passed as c_longlong (cublas.call would make a
# plain int a 32-bit C int, whose upper half is undefined in a 64-bit stack slot)
def cublasDgemmStridedBatched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C,
                              ldc, strideC, batchCount):
    cublas.call("cublasDgemmStridedBatched", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("D", alpha), A, lda, ctypes.c_longlong(strideA), B, ldb,
                ctypes.c_longlong(strideB), cublas.scalar("D", beta), C, ldc,
                ctypes.c_longlong(strideC), batchCount)
