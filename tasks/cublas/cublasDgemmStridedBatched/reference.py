"""cublasDgemmStridedBatched: C_i = alpha * op(A_i) op(B_i) + beta * C_i for i < batchCount, matrix i of each
operand starting at i * stride of its buffer (column-major, BLAS leading dimensions)."""

import torch

from runtime.blas import OP_N, mat, op


def _gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    """C = alpha * op(A) op(B) + beta * C on one column-major m x n C; beta == 0 reads no C."""
    if m <= 0 or n <= 0:
        return
    ra, ca = (m, k) if transa == OP_N else (k, m)
    rb, cb = (k, n) if transb == OP_N else (n, k)
    c = mat(C, m, n, ldc)
    prod = op(mat(A, ra, ca, lda), transa) @ op(mat(B, rb, cb, ldb), transb)
    if k <= 0:
        prod = torch.zeros_like(c)
    c.copy_(alpha * prod if beta == 0 else alpha * prod + beta * c)


def cublasDgemmStridedBatched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C,
                              ldc, strideC, batchCount):
    for i in range(max(batchCount, 0)):
        _gemm(transa, transb, m, n, k, alpha, A[i * strideA:], lda, B[i * strideB:], ldb,
              beta, C[i * strideC:], ldc)
    return None
