"""cublasZgemvBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the
lists of tensors become device arrays of their pointers there."""

from runtime import cublas


def cublasZgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy,
                       batchCount):
    cublas.call("cublasZgemvBatched", cublas.enum(trans), m, n, cublas.scalar("Z", alpha),
                Aarray, lda, xarray, incx, cublas.scalar("Z", beta), yarray, incy, batchCount)
