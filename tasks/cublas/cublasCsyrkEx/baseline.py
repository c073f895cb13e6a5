"""cublasCsyrkEx itself, from the cuBLAS library torch loaded (runtime/cublas.py); Atype and
Ctype are cudaDataType values (CUDA_C_32F = 4)."""

from runtime import cublas


def cublasCsyrkEx(uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc):
    cublas.call("cublasCsyrkEx", cublas.enum(uplo), cublas.enum(trans), n, k,
                cublas.scalar("C", alpha), A, cublas.enum(Atype), lda, cublas.scalar("C", beta),
                C, cublas.enum(Ctype), ldc)
