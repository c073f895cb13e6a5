"""Shipped solution for cublasSger_v2: A += alpha * x y^T, one Triton launch over 2-D tiles.

Each program owns a [BM, BN] tile of A (rows contiguous in memory: column-major), loads its BM
elements of x and BN of y once and writes the tile back; the gap between columns (lda > m) is
masked out, so it is neither read nor written. alpha is rounded to float32 (the routine takes a
`const float *`). BLAS increments with base (len-1)*|inc| for inc < 0; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ger_kernel(x_ptr, y_ptr, a_ptr, m, n, lda, alpha, incx, incy, base_x, base_y,
                BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN).to(tl.int64)
    rmask = rows < m
    cmask = cols < n
    xv = tl.load(x_ptr + base_x + rows * incx, mask=rmask, other=0.0)
    yv = tl.load(y_ptr + base_y + cols * incy, mask=cmask, other=0.0)
    ptrs = a_ptr + rows[:, None] + cols[None, :] * lda
    mask = rmask[:, None] & cmask[None, :]
    a = tl.load(ptrs, mask=mask)
    tl.store(ptrs, a + (alpha * xv)[:, None] * yv[None, :], mask=mask)


def _base(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasSger_v2(m: int, n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor,
                  incy: int, A: torch.Tensor, lda: int) -> None:
    if m < 0 or n < 0 or lda < max(1, m) or incx == 0 or incy == 0:
        raise ValueError("cublasSger_v2: invalid argument")
    if m == 0 or n == 0:
        return None
    alpha32 = float(torch.tensor(alpha, dtype=torch.float32))
    bm, bn = (128, 32) if A.is_cuda else (128, 128)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _ger_kernel[grid](x, y, A, m, n, lda, alpha32, incx, incy, _base(m, incx), _base(n, incy),
                      BM=bm, BN=bn, num_warps=4)
    return None
