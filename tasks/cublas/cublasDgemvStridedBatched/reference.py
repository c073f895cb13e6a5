"""cublasDgemvStridedBatched: y_b = alpha * op(A_b) x_b + beta * y_b for every batch member b,
with A_b, x_b and y_b at b*strideA, b*stridex and b*stridey of one buffer each."""

from runtime.blas import OP_N, get_vec, mat, op, set_vec


def cublasDgemvStridedBatched(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y,
                              incy, stridey, batchCount):
    if m <= 0 or n <= 0 or batchCount <= 0:
        return None
    rows, cols = (m, n) if trans == OP_N else (n, m)
    for b in range(batchCount):
        a = op(mat(A[b * strideA:], m, n, lda), trans)
        yb = y[b * stridey:]
        r = alpha * (a @ get_vec(x[b * stridex:], cols, incx))
        if beta != 0:  # beta = 0: y is not read
            r = r + beta * get_vec(yb, rows, incy)
        set_vec(yb, rows, incy, r)
    return None
