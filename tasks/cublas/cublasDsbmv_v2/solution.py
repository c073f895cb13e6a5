"""Shipped solution for cublasDsbmv_v2: y = alpha * A x + beta * y, A symmetric banded, one launch.

Each program owns BLOCK consecutive rows i and sums over the band offsets d = 0 .. k in chunks
of DC, with a [DC, BLOCK] tile (d runs down a column of the band storage, so these loads are
contiguous). Row i of A is split in two halves of the band:
- the part stored in column i itself: lower storage holds A[i+d, i] = A[i, i+d] at row d,
  upper storage A[i-d, i] = A[i, i-d] at row k-d; paired with x[i + s*d] (s = +1 lower,
  -1 upper), d = 0 .. k;
- the mirrored part, stored in column c = i - s*d: lower A[i, i-d] at row d of column i-d,
  upper A[i, i+d] at row k-d of column i+d; paired with x[c], d = 1 .. k.
Out-of-matrix positions are masked, so the unused corners of the storage are never read.
beta == 0 does not read y. BLAS increments with base (n-1)*|inc| for inc < 0; 64-bit offsets.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sbmv_kernel(a_ptr, x_ptr, y_ptr, n, k, lda, alpha: tl.float64, beta: tl.float64, incx, incy, base_x, base_y,
                 rbase, rsign, s, BETA_ZERO: tl.constexpr, BLOCK: tl.constexpr,
                 DC: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rmask = rows < n
    acc = tl.zeros([DC, BLOCK], dtype=tl.float64)
    for d0 in range(0, k + 1, DC):  # band elements stored in column i
        d = d0 + tl.arange(0, DC).to(tl.int64)
        xi = rows[None, :] + s * d[:, None]
        m = (d[:, None] <= k) & rmask[None, :] & (xi >= 0) & (xi < n)
        a = tl.load(a_ptr + rbase + rsign * d[:, None] + rows[None, :] * lda, mask=m, other=0.0)
        xv = tl.load(x_ptr + base_x + xi * incx, mask=m, other=0.0)
        acc += a * xv
    for d0 in range(1, k + 1, DC):  # mirrored elements, stored in column i - s*d
        d = d0 + tl.arange(0, DC).to(tl.int64)
        c = rows[None, :] - s * d[:, None]
        m = (d[:, None] <= k) & rmask[None, :] & (c >= 0) & (c < n)
        a = tl.load(a_ptr + rbase + rsign * d[:, None] + c * lda, mask=m, other=0.0)
        xv = tl.load(x_ptr + base_x + c * incx, mask=m, other=0.0)
        acc += a * xv
    r = alpha * tl.sum(acc, axis=0)
    yo = base_y + rows * incy
    if not BETA_ZERO:
        r += beta * tl.load(y_ptr + yo, mask=rmask, other=0.0)
    tl.store(y_ptr + yo, r, mask=rmask)


def _base(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasDsbmv_v2(uplo: int, n: int, k: int, alpha: float, A: torch.Tensor, lda: int,
                   x: torch.Tensor, incx: int, beta: float, y: torch.Tensor,
                   incy: int) -> None:
    if uplo not in (0, 1) or n < 0 or k < 0 or lda < k + 1 or incx == 0 or incy == 0:
        raise ValueError("cublasDsbmv_v2: invalid argument")
    if n == 0:
        return None
    gpu = A.is_cuda
    block, dc = (128, 16) if gpu else (512, 32)
    if uplo == 0:
        rbase, rsign, s = 0, 1, 1
    else:
        rbase, rsign, s = k, -1, -1
    _sbmv_kernel[(triton.cdiv(n, block),)](A, x, y, n, k, lda, float(alpha), float(beta), incx,
                                           incy, _base(n, incx), _base(n, incy), rbase, rsign,
                                           s, BETA_ZERO=(beta == 0), BLOCK=block, DC=dc,
                                           num_warps=4)
    return None
