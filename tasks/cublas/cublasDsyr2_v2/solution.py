"""Shipped solution for cublasDsyr2_v2: A += alpha * (x y^T + y x^T) on the uplo triangle.

A 2-D grid of [BM, BN] tiles (rows contiguous in memory: column-major); a tile wholly outside
the uplo triangle returns at once, a tile crossing the diagonal masks to i >= j (lower) or
i <= j (upper), so the other triangle and the column gaps are neither read nor written. Each
tile loads its pieces of x and y once per row and once per column. BLAS increments with base
(n-1)*|inc| for inc < 0; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _syr2_kernel(x_ptr, y_ptr, a_ptr, n, lda, alpha: tl.float64, incx, incy, base_x, base_y,
                 LOWER: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    r0 = pm * BM
    c0 = pn * BN
    if LOWER:
        skip = r0 + BM - 1 < c0  # every row of the tile above every column: no i >= j
    else:
        skip = r0 > c0 + BN - 1
    if not skip:
        rows = r0.to(tl.int64) + tl.arange(0, BM).to(tl.int64)
        cols = c0.to(tl.int64) + tl.arange(0, BN).to(tl.int64)
        rmask = rows < n
        cmask = cols < n
        xr = tl.load(x_ptr + base_x + rows * incx, mask=rmask, other=0.0)
        yr = tl.load(y_ptr + base_y + rows * incy, mask=rmask, other=0.0)
        xc = tl.load(x_ptr + base_x + cols * incx, mask=cmask, other=0.0)
        yc = tl.load(y_ptr + base_y + cols * incy, mask=cmask, other=0.0)
        mask = rmask[:, None] & cmask[None, :]
        if LOWER:
            mask = mask & (rows[:, None] >= cols[None, :])
        else:
            mask = mask & (rows[:, None] <= cols[None, :])
        ptrs = a_ptr + rows[:, None] + cols[None, :] * lda
        a = tl.load(ptrs, mask=mask)
        upd = (alpha * xr)[:, None] * yc[None, :] + (alpha * yr)[:, None] * xc[None, :]
        tl.store(ptrs, a + upd, mask=mask)


def _base(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasDsyr2_v2(uplo: int, n: int, alpha: float, x: torch.Tensor, incx: int,
                   y: torch.Tensor, incy: int, A: torch.Tensor, lda: int) -> None:
    if uplo not in (0, 1) or n < 0 or lda < max(1, n) or incx == 0 or incy == 0:
        raise ValueError("cublasDsyr2_v2: invalid argument")
    if n == 0:
        return None
    bm, bn = (64, 32) if A.is_cuda else (128, 128)
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    _syr2_kernel[grid](x, y, A, n, lda, float(alpha), incx, incy, _base(n, incx),
                       _base(n, incy), LOWER=(uplo == 0), BM=bm, BN=bn, num_warps=4)
    return None
