"""cublasSgemvStridedBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py).
The strides are `long long int` in C: passed as 64-bit ctypes values (a plain int would be a C
int)."""

import ctypes

from runtime import cublas


def cublasSgemvStridedBatched(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y,
                              incy, stridey, batchCount):
    cublas.call("cublasSgemvStridedBatched", cublas.enum(trans), m, n, cublas.scalar("S", alpha),
                A, lda, ctypes.c_longlong(strideA), x, incx, ctypes.c_longlong(stridex),
                cublas.scalar("S", beta), y, incy, ctypes.c_longlong(stridey), batchCount)
