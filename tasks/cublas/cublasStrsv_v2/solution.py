"""Shipped solution for cublasStrsv_v2: x = op(A)^-1 x by blocked substitution in Triton.

M = op(A) is read straight from A's storage (M[i, j] is A[i + j*lda] for N, A[j + i*lda] for
T/C), only from the uplo triangle. M is lower triangular for lower-N and upper-T (forward
substitution) and upper for upper-N and lower-T (backward). The rows are cut into blocks of BS.
1. One launch inverts every diagonal block in parallel (row by row substitution on a BS x BS
   register tile: X[j, :] = (e_j - M[j, before j] X) / M[j, j]; a unit diagonal is 1 and not
   read; rows past n act as identity).
2. One launch per block, in substitution order: every program forms the block's solution
   x_b = inv(M_bb) * (its current right-hand side); program 0 stores it in a scratch vector z,
   the others subtract M[rows, block] x_b from their chunk of the rows still to solve. The
   block's own rows of x are only read in that launch, so there is no race; z collects the
   solution.
3. One launch copies z back into x (BLAS increments: base (n-1)*|inc| for inc < 0).
Offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _m_offset(i, j, lda, TRANS: tl.constexpr):
    if TRANS:
        return j + i * lda
    else:
        return i + j * lda


@triton.jit
def _inv_diag_blocks(a_ptr, inv_ptr, n, lda, TRANS: tl.constexpr, FWD: tl.constexpr,
                     UNIT: tl.constexpr, BS: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    r0 = b * BS
    idx = tl.arange(0, BS)
    cols = r0 + idx.to(tl.int64)
    eye = (idx[:, None] == idx[None, :]).to(tl.float32)
    X = eye
    for jj in range(0, BS):
        if FWD:
            j = jj
        else:
            j = BS - 1 - jj
        gj = r0 + j
        if FWD:
            before = idx < j
        else:
            before = idx > j
        mrow = tl.load(a_ptr + _m_offset(gj, cols, lda, TRANS),
                       mask=before & (cols < n) & (gj < n), other=0.0)
        if UNIT:
            d = 1.0
        else:
            d = tl.load(a_ptr + _m_offset(gj, gj, lda, TRANS), mask=gj < n, other=1.0)
        ej = (idx == j).to(tl.float32)
        row = (ej - tl.sum(mrow[:, None] * X, axis=0)) / d
        X = tl.where(idx[:, None] == j, row[None, :], X)
    tl.store(inv_ptr + b * BS * BS + idx[:, None] * BS + idx[None, :], X)


@triton.jit
def _step(a_ptr, x_ptr, z_ptr, inv_ptr, n, lda, incx, base_x, blk, lo, hi,
          TRANS: tl.constexpr, BS: tl.constexpr, BM: tl.constexpr):
    idx = tl.arange(0, BS)
    brow = blk * BS + idx.to(tl.int64)  # blk may arrive as a constexpr 1: no .to()
    bmask = brow < n
    rhs = tl.load(x_ptr + base_x + brow * incx, mask=bmask, other=0.0)
    inv = tl.load(inv_ptr + blk * (BS * BS) + idx[:, None] * BS + idx[None, :])
    xb = tl.sum(inv * rhs[None, :], axis=1)
    pid = tl.program_id(0)
    if pid == 0:
        tl.store(z_ptr + brow, xb, mask=bmask)
    else:
        rows = lo + (pid - 1).to(tl.int64) * BM + tl.arange(0, BM).to(tl.int64)
        rmask = rows < hi
        m = tl.load(a_ptr + _m_offset(rows[:, None], brow[None, :], lda, TRANS),
                    mask=rmask[:, None] & bmask[None, :], other=0.0)
        xo = base_x + rows * incx
        cur = tl.load(x_ptr + xo, mask=rmask, other=0.0)
        tl.store(x_ptr + xo, cur - tl.sum(m * xb[None, :], axis=1), mask=rmask)


@triton.jit
def _scatter_vec(z_ptr, x_ptr, n, incx, base_x, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    tl.store(x_ptr + base_x + offs * incx, tl.load(z_ptr + offs, mask=mask), mask=mask)


def cublasStrsv_v2(uplo: int, trans: int, diag: int, n: int, A: torch.Tensor, lda: int,
                   x: torch.Tensor, incx: int) -> None:
    if (uplo not in (0, 1) or trans not in (0, 1, 2) or diag not in (0, 1) or n < 0
            or lda < max(1, n) or incx == 0):
        raise ValueError("cublasStrsv_v2: invalid argument")
    if n == 0:
        return None
    gpu = A.is_cuda
    bs = 64
    bm = 64 if gpu else 256
    nb = triton.cdiv(n, bs)
    tr = trans != 0
    fwd = (uplo == 0) != tr  # op(A) lower triangular
    base_x = (n - 1) * -incx if incx < 0 else 0
    inv = torch.empty(nb * bs * bs, dtype=torch.float32, device=A.device)
    z = torch.empty(n, dtype=torch.float32, device=A.device)
    _inv_diag_blocks[(nb,)](A, inv, n, lda, TRANS=tr, FWD=fwd, UNIT=(diag == 1), BS=bs,
                            num_warps=4)
    order = range(nb) if fwd else range(nb - 1, -1, -1)
    for blk in order:
        lo, hi = ((blk + 1) * bs, n) if fwd else (0, blk * bs)
        rest = max(0, hi - lo)
        _step[(1 + triton.cdiv(rest, bm),)](A, x, z, inv, n, lda, incx, base_x, blk, lo, hi,
                                             TRANS=tr, BS=bs, BM=bm, num_warps=4)
    block = 1024 if gpu else 1 << 16
    _scatter_vec[(triton.cdiv(n, block),)](z, x, n, incx, base_x, BLOCK=block, num_warps=4)
    return None
