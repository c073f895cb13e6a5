"""cublasDgemvBatched itself, from the cuBLAS library torch loaded (runtime/cublas.py); the
lists of tensors become device arrays of their pointers there."""

from runtime import cublas


def cublasDgemvBatched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy,
                       batchCount):
    cublas.call("cublasDgemvBatched", cublas.enum(trans), m, n, cublas.scalar("D", alpha),
                Aarray, lda, xarray, incx, cublas.scalar("D", beta), yarray, incy, batchCount)
