"""Shipped solution for cublasZtrsmBatched: blocked complex substitution, one launch per batch.

A and B are Python lists of 1-D complex128 tensors (cuBLAS's arrays of device pointers): the
wrapper builds an int64 table of their addresses, the kernel turns a loaded address into a
float64 pointer and reads (re, im) pairs at 2*e and 2*e + 1 (torch.view_as_real's layout).
Every case is reduced to L X = alpha B with L triangular (lower: forward, upper: backward
substitution) by strides alone: op(A) through (row, column) strides, OP_C negating imaginary
parts; side RIGHT, X op(A) = alpha B, solved as op(A)^T X^T = alpha B^T. Each program owns BN
right-hand-side columns of one matrix (grid axis 1 is the batch), walks the row blocks in solve
order, subtracts the solved rows with four float64 tl.dot products, solves the diagonal block
row by row in registers (complex division), stores it, and places a barrier before later blocks
read it back. Only the triangle is read (the diagonal not at all for UNIT).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ztrsm_batched_kernel(a_tab, b_tab, M, N, s_ai, s_al, s_bi, s_bj, alpha_re: tl.float64,
                          alpha_im: tl.float64, LOWER: tl.constexpr, UNIT: tl.constexpr,
                          CONJ: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
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
        b_off = 2 * (rows[:, None] * s_bi + cols[None, :] * s_bj)
        br = tl.load(b_ptr + b_off, mask=bmask, other=0.0)
        bi = tl.load(b_ptr + b_off + 1, mask=bmask, other=0.0)
        acc_re = alpha_re * br - alpha_im * bi
        acc_im = alpha_re * bi + alpha_im * br
        for k0 in range(k_lo, k_hi, BK):  # rows solved already
            ks = (k0 + tl.arange(0, BK)).to(tl.int64)
            kmask = ks < k_hi
            l_off = 2 * (rows[:, None] * s_ai + ks[None, :] * s_al)
            l_msk = rmask[:, None] & kmask[None, :]
            lr = tl.load(a_ptr + l_off, mask=l_msk, other=0.0)
            li = tl.load(a_ptr + l_off + 1, mask=l_msk, other=0.0)
            if CONJ:
                li = -li
            x_off = 2 * (ks[:, None] * s_bi + cols[None, :] * s_bj)
            x_msk = kmask[:, None] & cmask[None, :]
            xr = tl.load(b_ptr + x_off, mask=x_msk, other=0.0)
            xim = tl.load(b_ptr + x_off + 1, mask=x_msk, other=0.0)
            acc_re -= tl.dot(lr, xr, input_precision="ieee", out_dtype=tl.float64)
            acc_re += tl.dot(li, xim, input_precision="ieee", out_dtype=tl.float64)
            acc_im -= tl.dot(lr, xim, input_precision="ieee", out_dtype=tl.float64)
            acc_im -= tl.dot(li, xr, input_precision="ieee", out_dtype=tl.float64)
        for s in range(0, BM):  # the diagonal block, one row at a time
            if LOWER:
                ii = s
            else:
                ii = BM - 1 - s
            i = (r * BM + ii).to(tl.int64)
            sel = loc == ii
            x_re = tl.sum(tl.where(sel[:, None], acc_re, 0.0), axis=0)
            x_im = tl.sum(tl.where(sel[:, None], acc_im, 0.0), axis=0)
            if not UNIT:
                d_re = tl.load(a_ptr + 2 * (i * s_ai + i * s_al), mask=i < M, other=1.0)
                d_im = tl.load(a_ptr + 2 * (i * s_ai + i * s_al) + 1, mask=i < M, other=0.0)
                if CONJ:
                    d_im = -d_im
                den = d_re * d_re + d_im * d_im
                q_re = (x_re * d_re + x_im * d_im) / den
                q_im = (x_im * d_re - x_re * d_im) / den
                x_re = q_re
                x_im = q_im
            acc_re = tl.where(sel[:, None], x_re[None, :], acc_re)
            acc_im = tl.where(sel[:, None], x_im[None, :], acc_im)
            if LOWER:
                later = (loc > ii) & rmask
            else:
                later = loc < ii
            c_off = 2 * (rows * s_ai + i * s_al)
            c_msk = later & (i < M)
            cr = tl.load(a_ptr + c_off, mask=c_msk, other=0.0)
            ci = tl.load(a_ptr + c_off + 1, mask=c_msk, other=0.0)
            if CONJ:
                ci = -ci
            acc_re -= cr[:, None] * x_re[None, :] - ci[:, None] * x_im[None, :]
            acc_im -= cr[:, None] * x_im[None, :] + ci[:, None] * x_re[None, :]
        tl.store(b_ptr + b_off, acc_re, mask=bmask)
        tl.store(b_ptr + b_off + 1, acc_im, mask=bmask)
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


def cublasZtrsmBatched(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount):
    if side not in (0, 1) or uplo not in (0, 1) or trans not in (0, 1, 2) or diag not in (0, 1):
        raise ValueError("cublasZtrsmBatched: invalid enum argument")
    if m < 0 or n < 0 or batchCount < 0:
        raise ValueError("cublasZtrsmBatched: negative size")
    if m == 0 or n == 0 or batchCount == 0:
        return None
    M, N, s_ai, s_al, s_bi, s_bj, lower = _plan(side, uplo, trans, m, n, lda, ldb)
    alpha = complex(alpha)
    dev = B[0].device
    if B[0].is_cuda:
        bm, bn, bk, warps = 32, 32, 32, 4
    else:
        bm, bn, bk, warps = 32, 128, 32, 4
    grid = (triton.cdiv(N, bn), batchCount)
    _ztrsm_batched_kernel[grid](_table(A, batchCount, dev), _table(B, batchCount, dev), M, N,
                                s_ai, s_al, s_bi, s_bj, alpha.real, alpha.imag, LOWER=lower,
                                UNIT=(diag == 1), CONJ=(trans == 2), BM=bm, BN=bn, BK=bk,
                                num_warps=warps)
    return None
