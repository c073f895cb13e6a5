"""cublasCgemmStridedBatched_64 itself, from the cuBLAS library torch loaded (runtime/cublas.py)."""

from runtime import cublas


# a _64 routine: cublas.call passes every int (sizes, leading dimensions, strides, batchCount)
# as int64_t, which is also what the `long long int` strides are
def cublasCgemmStridedBatched_64(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C,
                                 ldc, strideC, batchCount):
    cublas.call("cublasCgemmStridedBatched_64", cublas.enum(transa), cublas.enum(transb), m, n, k,
                cublas.scalar("C", alpha), A, lda, strideA, B, ldb, strideB,
                cublas.scalar("C", beta), C, ldc, strideC, batchCount)
