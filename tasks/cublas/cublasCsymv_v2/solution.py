"""Shipped solution for cublasCsymv_v2: y = alpha * A x + beta * y, A complex symmetric.

Only the stored triangle is read, each element once. The matrix is cut into BS x BS tiles and
program (bi, bj) of a 2-D grid handles one tile of the stored triangle (the others return at
once). An off-diagonal tile T serves both A[I, J] = T and A[J, I] = T^T: it adds T x[J] to the
rows of block I and T^T x[I] to the rows of block J. A diagonal tile is completed from its
stored half by symmetry (no conjugation). Every product goes to its own slot of a partial
buffer P[nb, n] of float32 (re, im) pairs: T x[J] to P[bj, I], T^T x[I] to P[bi, J], the
diagonal tile to P[bi, I], so each slot is written exactly once and no atomics are needed.
A second launch sums P over its first index and applies alpha and beta (beta == 0: y is not
read). Complex data is read through torch.view_as_real (element e at 2e, 2e + 1).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _symv_tiles(a_ptr, x_ptr, part_ptr, n, lda, incx, base_x, LOWER: tl.constexpr,
                BS: tl.constexpr):
    bi = tl.program_id(0)
    bj = tl.program_id(1)
    stored = (bi >= bj) if LOWER else (bi <= bj)
    if stored:
        rows = bi.to(tl.int64) * BS + tl.arange(0, BS).to(tl.int64)
        cols = bj.to(tl.int64) * BS + tl.arange(0, BS).to(tl.int64)
        rmask = rows < n
        cmask = cols < n
        xro = 2 * (base_x + rows * incx)
        xco = 2 * (base_x + cols * incx)
        xr_r = tl.load(x_ptr + xro, mask=rmask, other=0.0)  # x[I]
        xr_i = tl.load(x_ptr + xro + 1, mask=rmask, other=0.0)
        xc_r = tl.load(x_ptr + xco, mask=cmask, other=0.0)  # x[J]
        xc_i = tl.load(x_ptr + xco + 1, mask=cmask, other=0.0)
        inb = rmask[:, None] & cmask[None, :]
        if bi == bj:
            if LOWER:
                mine = rows[:, None] >= cols[None, :]
                mirror = rows[:, None] < cols[None, :]
            else:
                mine = rows[:, None] <= cols[None, :]
                mirror = rows[:, None] > cols[None, :]
            do = 2 * (rows[:, None] + cols[None, :] * lda)   # A[r, c], stored half
            to = 2 * (cols[None, :] + rows[:, None] * lda)   # A[c, r], its mirror
            tr = tl.load(a_ptr + do, mask=inb & mine, other=0.0) + \
                tl.load(a_ptr + to, mask=inb & mirror, other=0.0)
            ti = tl.load(a_ptr + do + 1, mask=inb & mine, other=0.0) + \
                tl.load(a_ptr + to + 1, mask=inb & mirror, other=0.0)
            pr = tl.sum(tr * xc_r[None, :] - ti * xc_i[None, :], axis=1)
            pi = tl.sum(tr * xc_i[None, :] + ti * xc_r[None, :], axis=1)
            po = 2 * (bi.to(tl.int64) * n + rows)
            tl.store(part_ptr + po, pr, mask=rmask)
            tl.store(part_ptr + po + 1, pi, mask=rmask)
        else:
            ao = 2 * (rows[:, None] + cols[None, :] * lda)
            tr = tl.load(a_ptr + ao, mask=inb, other=0.0)
            ti = tl.load(a_ptr + ao + 1, mask=inb, other=0.0)
            # T x[J] -> rows I, slot P[bj, I]
            pr = tl.sum(tr * xc_r[None, :] - ti * xc_i[None, :], axis=1)
            pi = tl.sum(tr * xc_i[None, :] + ti * xc_r[None, :], axis=1)
            po = 2 * (bj.to(tl.int64) * n + rows)
            tl.store(part_ptr + po, pr, mask=rmask)
            tl.store(part_ptr + po + 1, pi, mask=rmask)
            # T^T x[I] -> rows J, slot P[bi, J]
            qr = tl.sum(tr * xr_r[:, None] - ti * xr_i[:, None], axis=0)
            qi = tl.sum(tr * xr_i[:, None] + ti * xr_r[:, None], axis=0)
            qo = 2 * (bi.to(tl.int64) * n + cols)
            tl.store(part_ptr + qo, qr, mask=cmask)
            tl.store(part_ptr + qo + 1, qi, mask=cmask)


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


def cublasCsymv_v2(uplo: int, n: int, alpha: complex, A: torch.Tensor, lda: int,
                   x: torch.Tensor, incx: int, beta: complex, y: torch.Tensor,
                   incy: int) -> None:
    if uplo not in (0, 1) or n < 0 or lda < max(1, n) or incx == 0 or incy == 0:
        raise ValueError("cublasCsymv_v2: invalid argument")
    if n == 0:
        return None
    alpha, beta = complex(alpha), complex(beta)
    gpu = A.is_cuda
    bs = 64 if gpu else 128
    nb = triton.cdiv(n, bs)
    part = torch.empty(2 * nb * n, dtype=torch.float32, device=A.device)
    _symv_tiles[(nb, nb)](torch.view_as_real(A), torch.view_as_real(x), part, n, lda, incx,
                          _base(n, incx), LOWER=(uplo == 0), BS=bs, num_warps=8 if gpu else 4)
    block = 1024 if gpu else 4096
    _combine[(triton.cdiv(n, block),)](part, torch.view_as_real(y), n, nb, _f32(alpha.real),
                                       _f32(alpha.imag), _f32(beta.real), _f32(beta.imag),
                                       incy, _base(n, incy), BETA_ZERO=(beta == 0),
                                       BLOCK=block, num_warps=4)
    return None
