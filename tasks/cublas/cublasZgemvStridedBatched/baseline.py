"""cublasZgemvStridedBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py).
The strides are `long long int` in C: passed as cublas.i64 (a plain int would be a C int)."""

from runtime import cublas


def cublasZgemvStridedBatched(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y,
                              incy, stridey, batchCount):
    cublas.call("cublasZgemvStridedBatched", cublas.enum(trans), m, n, cublas.scalar("Z", alpha),
                A, lda, cublas.i64(strideA), x, incx, cublas.i64(stridex),
                cublas.scalar("Z", beta), y, incy, cublas.i64(stridey), batchCount)
