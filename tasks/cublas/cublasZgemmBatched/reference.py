"""cublasZgemmBatched: C[i] = alpha * op(A[i]) op(B[i]) + beta * C[i] for each i < batchCount, every operand
given as an array of pointers (a Python list of 1-D tensors, one column-major matrix each)."""

import torch

from runtime.blas import OP_N, mat, op


def cublasZgemmBatched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
       batchCount):
    if m <= 0 or n <= 0:
        return None
    ra, ca = (m, k) if transa == OP_N else (k, m)
    rb, cb = (k, n) if transb == OP_N else (n, k)
    for i in range(max(batchCount, 0)):
        c = mat(Carray[i], m, n, ldc)
        if k > 0:
            prod = op(mat(Aarray[i], ra, ca, lda), transa) @ op(mat(Barray[i], rb, cb, ldb), transb)
        else:
            prod = torch.zeros_like(c)
        c.copy_(alpha * prod if beta == 0 else alpha * prod + beta * c)  # beta == 0: C unread
    return None
