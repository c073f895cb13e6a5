"""cublasSgemvBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the
lists of tensors become device arrays of their pointers there."""

from runtime import cublas


def cublasSgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy,
                       batchCount):
    cublas.call("cublasSgemvBatched", cublas.enum(trans), m, n, cublas.scalar("S", alpha),
                Aarray, lda, xarray, incx, cublas.scalar("S", beta), yarray, incy, batchCount)
