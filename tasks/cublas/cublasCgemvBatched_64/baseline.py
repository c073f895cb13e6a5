"""cublasCgemvBatched_64 itself, from the cuBLAS library torch loaded (runtime/cublas.py): the
ints become int64_t for a `_64` routine and the lists of tensors device arrays of pointers."""

from runtime import cublas


def cublasCgemvBatched_64(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy,
                          batchCount):
    cublas.call("cublasCgemvBatched_64", cublas.enum(trans), m, n, cublas.scalar("C", alpha),
                Aarray, lda, xarray, incx, cublas.scalar("C", beta), yarray, incy, batchCount)
