"""Shipped solution for cublasDtrsmBatched: blocked substitution, the whole batch in one launch.

A and B are Python lists of 1-D float64 tensors (cuBLAS's arrays of device pointers): the
wrapper builds an int64 table of their addresses and the kernel turns a loaded address into a
float64 pointer. Every case is reduced to one form, L X = alpha B with L triangular (lower:
forward substitution, upper: backward), by strides alone: op(A) is read through (row, column)
strides, and side RIGHT, X op(A) = alpha B, is solved as op(A)^T X^T = alpha B^T (X^T read with
swapped strides, so the triangle flips). Each program owns BN right-hand-side columns of one
matrix of the batch (grid axis 1) and walks the row blocks of BM rows in solve order: it
subtracts the already solved rows with tl.dot (float64), then solves the BM x BM diagonal block
row by row in registers, stores the block, and places a barrier before later blocks read it
back. Only the triangle is read (the diagonal not at all for UNIT); B is the only output.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _trsm_batched_kernel(a_tab, b_tab, M, N, s_ai, s_al, s_bi, s_bj, alpha: tl.float64,
                         LOWER: tl.constexpr, UNIT: tl.constexpr, BM: tl.constexpr,
                         BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    bat = tl.program_id(1)
    a_ptr = tl.load(a_tab + bat).to(tl.pointer_type(tl.float64))
    b_ptr = tl.load(b_tab + bat).to(tl.pointer_type(tl.float64))
    cols = (pid * BN + tl.arange(0, BN)).to(tl.int64)
    cmask = cols < N
    loc = tl.arange(0, BM)
    nb = tl.cdiv(M, BM)
    for t in range(0, nb):
        if LOWER:
            r = t
            k_lo = 0
            k_hi = r * BM
        else:
            r = nb - 1 - t
            k_lo = (r + 1) * BM
            k_hi = M
        rows = (r * BM + loc).to(tl.int64)
        rmask = rows < M
        bmask = rmask[:, None] & cmask[None, :]
        b_off = rows[:, None] * s_bi + cols[None, :] * s_bj
        acc = alpha * tl.load(b_ptr + b_off, mask=bmask, other=0.0)
        for k0 in range(k_lo, k_hi, BK):  # rows solved already
            ks = (k0 + tl.arange(0, BK)).to(tl.int64)
            kmask = ks < k_hi
            lt = tl.load(a_ptr + rows[:, None] * s_ai + ks[None, :] * s_al,
                         mask=rmask[:, None] & kmask[None, :], other=0.0)
            xt = tl.load(b_ptr + ks[:, None] * s_bi + cols[None, :] * s_bj,
                         mask=kmask[:, None] & cmask[None, :], other=0.0)
            acc -= tl.dot(lt, xt, input_precision="ieee", out_dtype=tl.float64)
        for s in range(0, BM):  # the diagonal block, one row at a time
            if LOWER:
                ii = s
            else:
                ii = BM - 1 - s
            i = (r * BM + ii).to(tl.int64)
            sel = loc == ii
            xi = tl.sum(tl.where(sel[:, None], acc, 0.0), axis=0)
            if not UNIT:
                xi = xi / tl.load(a_ptr + i * s_ai + i * s_al, mask=i < M, other=1.0)
            acc = tl.where(sel[:, None], xi[None, :], acc)
            if LOWER:
                later = (loc > ii) & rmask
            else:
                later = loc < ii
            col = tl.load(a_ptr + rows * s_ai + i * s_al, mask=later & (i < M), other=0.0)
            acc -= col[:, None] * xi[None, :]
        tl.store(b_ptr + b_off, acc, mask=bmask)
        tl.debug_barrier()


def _plan(side, uplo, trans, m, n, lda, ldb):
    """(M, N, strides of the triangular L, strides of X, lower) of the form L X = alpha B."""
    if side == 0:  # op(A) X = alpha B
        if trans == 0:
            return m, n, 1, lda, 1, ldb, uplo == 0
        return m, n, lda, 1, 1, ldb, uplo == 1
    # X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
    if trans == 0:
        return n, m, lda, 1, ldb, 1, uplo == 1
    return n, m, 1, lda, ldb, 1, uplo == 0


def _table(mats, count, device):
    return torch.tensor([t.data_ptr() for t in mats[:count]], dtype=torch.int64, device=device)


def cublasDtrsmBatched(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount):
    if side not in (0, 1) or uplo not in (0, 1) or trans not in (0, 1, 2) or diag not in (0, 1):
        raise ValueError("cublasDtrsmBatched: invalid enum argument")
    if m < 0 or n < 0 or batchCount < 0:
        raise ValueError("cublasDtrsmBatched: negative size")
    if m == 0 or n == 0 or batchCount == 0:
        return None
    M, N, s_ai, s_al, s_bi, s_bj, lower = _plan(side, uplo, trans, m, n, lda, ldb)
    dev = B[0].device
    if B[0].is_cuda:
        bm, bn, bk, warps = 32, 64, 32, 4
    else:
        bm, bn, bk, warps = 32, 128, 32, 4
    grid = (triton.cdiv(N, bn), batchCount)
    _trsm_batched_kernel[grid](_table(A, batchCount, dev), _table(B, batchCount, dev), M, N,
                               s_ai, s_al, s_bi, s_bj, float(alpha), LOWER=lower,
                               UNIT=(diag == 1), BM=bm, BN=bn, BK=bk, num_warps=warps)
    return None
