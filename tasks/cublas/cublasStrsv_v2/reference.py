"""cublasStrsv_v2: x = op(A)^-1 x, A triangular (uplo triangle read, unit or stored diagonal)."""

import torch

from runtime.blas import OP_N, UNIT, UPPER, get_vec, mat, op, set_vec, triangle


def cublasStrsv_v2(uplo, trans, diag, n, A, lda, x, incx):
    if n <= 0:
        return None
    t = op(triangle(mat(A, n, n, lda), uplo, unit=diag == UNIT), trans)
    upper = (uplo == UPPER) == (trans == OP_N)  # op(A) is upper triangular
    b = get_vec(x, n, incx).unsqueeze(1)
    set_vec(x, n, incx, torch.linalg.solve_triangular(t, b, upper=upper).squeeze(1))
    return None
