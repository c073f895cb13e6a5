"""Shipped solution for cublasCgemv_v2: y = alpha * op(A) x + beta * y, complex64, two launches.

The complex buffers are read as float32 (re, im) pairs (torch.view_as_real: a view); element e
of a complex buffer is at 2e (re) and 2e + 1 (im). Pass 1 computes the dot products over a
split of the summed dimension into a float32 partial buffer of (re, im) pairs: for trans N a
program owns BM rows and a chunk of the columns, for T/C it owns BN columns and a chunk of the
rows (the tile is [BM, BN] with rows contiguous in memory either way; C negates A's imaginary
part). Pass 2 adds the partials and applies alpha and beta (beta == 0: y is not read).
(a+bi)(c+di) = (ac-bd) + (ad+bc)i. BLAS increments with base (len-1)*|inc| for inc < 0; offsets
are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_n_part(a_ptr, x_ptr, part_ptr, m, n, lda, incx, base_x, chunk,
                 BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    ps = tl.program_id(1)
    rows = pm.to(tl.int64) * BM + tl.arange(0, BM).to(tl.int64)
    rmask = rows < m
    acc_re = tl.zeros([BM, BN], dtype=tl.float32)
    acc_im = tl.zeros([BM, BN], dtype=tl.float32)
    j0 = ps.to(tl.int64) * chunk
    j1 = tl.minimum(j0 + chunk, n)
    for j in range(j0, j1, BN):
        cols = j + tl.arange(0, BN).to(tl.int64)
        cmask = cols < j1
        xo = 2 * (base_x + cols * incx)
        xr = tl.load(x_ptr + xo, mask=cmask, other=0.0)
        xi = tl.load(x_ptr + xo + 1, mask=cmask, other=0.0)
        ao = 2 * (rows[:, None] + cols[None, :] * lda)
        am = rmask[:, None] & cmask[None, :]
        ar = tl.load(a_ptr + ao, mask=am, other=0.0)
        ai = tl.load(a_ptr + ao + 1, mask=am, other=0.0)
        acc_re += ar * xr[None, :] - ai * xi[None, :]
        acc_im += ar * xi[None, :] + ai * xr[None, :]
    po = 2 * (ps.to(tl.int64) * m + rows)
    tl.store(part_ptr + po, tl.sum(acc_re, axis=1), mask=rmask)
    tl.store(part_ptr + po + 1, tl.sum(acc_im, axis=1), mask=rmask)


@triton.jit
def _gemv_t_part(a_ptr, x_ptr, part_ptr, m, n, lda, incx, base_x, chunk,
                 CONJ: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pn = tl.program_id(0)
    ps = tl.program_id(1)
    cols = pn.to(tl.int64) * BN + tl.arange(0, BN).to(tl.int64)
    cmask = cols < n
    acc_re = tl.zeros([BM, BN], dtype=tl.float32)
    acc_im = tl.zeros([BM, BN], dtype=tl.float32)
    i0 = ps.to(tl.int64) * chunk
    i1 = tl.minimum(i0 + chunk, m)
    for i in range(i0, i1, BM):
        rows = i + tl.arange(0, BM).to(tl.int64)
        rmask = rows < i1
        xo = 2 * (base_x + rows * incx)
        xr = tl.load(x_ptr + xo, mask=rmask, other=0.0)
        xi = tl.load(x_ptr + xo + 1, mask=rmask, other=0.0)
        ao = 2 * (rows[:, None] + cols[None, :] * lda)
        am = rmask[:, None] & cmask[None, :]
        ar = tl.load(a_ptr + ao, mask=am, other=0.0)
        ai = tl.load(a_ptr + ao + 1, mask=am, other=0.0)
        if CONJ:
            ai = -ai
        acc_re += ar * xr[:, None] - ai * xi[:, None]
        acc_im += ar * xi[:, None] + ai * xr[:, None]
    po = 2 * (ps.to(tl.int64) * n + cols)
    tl.store(part_ptr + po, tl.sum(acc_re, axis=0), mask=cmask)
    tl.store(part_ptr + po + 1, tl.sum(acc_im, axis=0), mask=cmask)


@triton.jit
def _combine(part_ptr, y_ptr, length, splits, alpha_re, alpha_im, beta_re, beta_im, incy,
             base_y, BETA_ZERO: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < length
    sr = tl.zeros([BLOCK], dtype=tl.float32)
    si = tl.zeros([BLOCK], dtype=tl.float32)
    for p in range(0, splits):
        po = 2 * (p * length + offs)
        sr += tl.load(part_ptr + po, mask=mask, other=0.0)
        si += tl.load(part_ptr + po + 1, mask=mask, other=0.0)
    rr = alpha_re * sr - alpha_im * si
    ri = alpha_re * si + alpha_im * sr
    yo = 2 * (base_y + offs * incy)
    if not BETA_ZERO:
        yr = tl.load(y_ptr + yo, mask=mask, other=0.0)
        yi = tl.load(y_ptr + yo + 1, mask=mask, other=0.0)
        rr += beta_re * yr - beta_im * yi
        ri += beta_re * yi + beta_im * yr
    tl.store(y_ptr + yo, rr, mask=mask)
    tl.store(y_ptr + yo + 1, ri, mask=mask)


def _base(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def _f32(v: float) -> float:
    return float(torch.tensor(v, dtype=torch.float32))


def cublasCgemv_v2(trans: int, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int,
                   x: torch.Tensor, incx: int, beta: complex, y: torch.Tensor,
                   incy: int) -> None:
    if trans not in (0, 1, 2) or m < 0 or n < 0 or lda < max(1, m) or incx == 0 or incy == 0:
        raise ValueError("cublasCgemv_v2: invalid argument")
    if m == 0 or n == 0:
        return None
    alpha, beta = complex(alpha), complex(beta)
    gpu = A.is_cuda
    lx, ly = (n, m) if trans == 0 else (m, n)  # x length (the sum), y length (the outputs)
    bm, bn = (64, 32) if gpu else (128, 128)
    blocks, bk = (triton.cdiv(m, bm), bn) if trans == 0 else (triton.cdiv(n, bn), bm)
    splits = 1
    if gpu:  # enough programs to fill the GPU, each summing at least a few tiles
        splits = max(1, min(triton.cdiv(lx, 4 * bk), triton.cdiv(1024, blocks)))
    chunk = triton.cdiv(triton.cdiv(lx, splits), bk) * bk
    splits = triton.cdiv(lx, chunk)
    part = torch.empty(2 * splits * ly, dtype=torch.float32, device=A.device)
    a, xv, yv = torch.view_as_real(A), torch.view_as_real(x), torch.view_as_real(y)
    if trans == 0:
        _gemv_n_part[(blocks, splits)](a, xv, part, m, n, lda, incx, _base(lx, incx), chunk,
                                       BM=bm, BN=bn, num_warps=4)
    else:
        _gemv_t_part[(blocks, splits)](a, xv, part, m, n, lda, incx, _base(lx, incx), chunk,
                                       CONJ=(trans == 2), BM=bm, BN=bn, num_warps=4)
    block = 1024 if gpu else 4096
    _combine[(triton.cdiv(ly, block),)](part, yv, ly, splits, _f32(alpha.real),
                                        _f32(alpha.imag), _f32(beta.real), _f32(beta.imag),
                                        incy, _base(ly, incy), BETA_ZERO=(beta == 0),
                                        BLOCK=block, num_warps=4)
    return None
