"""Shipped solution for cublasStbmv_v2: x = op(A) x, A triangular banded, two Triton launches.

x is updated in place and each output needs old values of its neighbours, so the first launch
copies x (in BLAS order) to a contiguous scratch vector t and the second computes
x[i] = sum_d op(A)[i, i + s*d] * t[i + s*d] from t. With band offset d = 0 .. k, every
(uplo, trans) pair is one of two access patterns of the storage (r(d) = d for lower, k - d for
upper):
- op(A)[i, *] lies in column i of the storage (lower-T, upper-T): element at r(d) + i*lda,
  paired with t[i + s*d] (s = +1 lower, -1 upper): contiguous [DC, BLOCK] tiles;
- it lies along a row of A (lower-N, upper-N): element at r(d) + c*lda with c = i + s*d
  (s = -1 lower, +1 upper), paired with t[c].
Positions outside the matrix are masked (never read). A unit diagonal skips d = 0 and adds
t[i]. BLAS increments with base (n-1)*|inc| for inc < 0; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_vec(x_ptr, t_ptr, n, incx, base_x, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    tl.store(t_ptr + offs, tl.load(x_ptr + base_x + offs * incx, mask=mask), mask=mask)


@triton.jit
def _tbmv_kernel(a_ptr, t_ptr, x_ptr, n, k, lda, incx, base_x, rbase, rsign, s,
                 ALONG_ROW: tl.constexpr, UNIT: tl.constexpr, BLOCK: tl.constexpr,
                 DC: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    rmask = rows < n
    acc = tl.zeros([DC, BLOCK], dtype=tl.float32)
    start = 1 if UNIT else 0
    for d0 in range(start, k + 1, DC):
        d = d0 + tl.arange(0, DC).to(tl.int64)
        c = rows[None, :] + s * d[:, None]
        m = (d[:, None] <= k) & rmask[None, :] & (c >= 0) & (c < n)
        if ALONG_ROW:
            a = tl.load(a_ptr + rbase + rsign * d[:, None] + c * lda, mask=m, other=0.0)
        else:
            a = tl.load(a_ptr + rbase + rsign * d[:, None] + rows[None, :] * lda, mask=m,
                        other=0.0)
        acc += a * tl.load(t_ptr + c, mask=m, other=0.0)
    r = tl.sum(acc, axis=0)
    if UNIT:
        r += tl.load(t_ptr + rows, mask=rmask, other=0.0)
    tl.store(x_ptr + base_x + rows * incx, r, mask=rmask)


def cublasStbmv_v2(uplo: int, trans: int, diag: int, n: int, k: int, A: torch.Tensor,
                   lda: int, x: torch.Tensor, incx: int) -> None:
    if (uplo not in (0, 1) or trans not in (0, 1, 2) or diag not in (0, 1) or n < 0 or k < 0
            or lda < k + 1 or incx == 0):
        raise ValueError("cublasStbmv_v2: invalid argument")
    if n == 0:
        return None
    gpu = A.is_cuda
    block, dc = (128, 32) if gpu else (512, 32)
    base_x = (n - 1) * -incx if incx < 0 else 0
    t = torch.empty(n, dtype=torch.float32, device=x.device)
    cblock = 1024 if gpu else 1 << 16
    _gather_vec[(triton.cdiv(n, cblock),)](x, t, n, incx, base_x, BLOCK=cblock, num_warps=4)
    lower, along_row = uplo == 0, trans == 0
    rbase, rsign = (0, 1) if lower else (k, -1)
    s = (1 if lower else -1) * (-1 if along_row else 1)
    _tbmv_kernel[(triton.cdiv(n, block),)](A, t, x, n, k, lda, incx, base_x, rbase, rsign, s,
                                           ALONG_ROW=along_row, UNIT=(diag == 1), BLOCK=block,
                                           DC=dc, num_warps=4)
    return None
