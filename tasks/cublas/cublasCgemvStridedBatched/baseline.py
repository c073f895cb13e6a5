"""cublasCgemvStridedBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py).
The strides are `long long int` in C: passed as cublas.i64 (a plain int would be a C int)."""

from runtime import cublas


def cublasCgemvStridedBatched(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y,
                              incy, stridey, batchCount):
    cublas.call("cublasCgemvStridedBatched", cublas.enum(trans), m, n, cublas.scalar("C", alpha),
                A, lda, cublas.i64(strideA), x, incx, cublas.i64(stridex),
                cublas.scalar("C", beta), y, incy, cublas.i64(stridey), batchCount)
