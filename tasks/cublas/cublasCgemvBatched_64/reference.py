"""cublasCgemvBatched_64: y_b = alpha * op(A_b) x_b + beta * y_b for every batch member b, with
A_b, x_b and y_b the tensors Aarray[b], xarray[b] and yarray[b] (C's arrays of pointers)."""

from runtime.blas import OP_N, get_vec, mat, op, set_vec


def cublasCgemvBatched_64(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy,
                          batchCount):
    if m <= 0 or n <= 0 or batchCount <= 0:
        return None
    rows, cols = (m, n) if trans == OP_N else (n, m)
    for b in range(batchCount):
        a = op(mat(Aarray[b], m, n, lda), trans)
        r = alpha * (a @ get_vec(xarray[b], cols, incx))
        if beta != 0:  # beta = 0: y is not read
            r = r + beta * get_vec(yarray[b], rows, incy)
        set_vec(yarray[b], rows, incy, r)
    return None
