"""Shipped solution for cublasZgerc_v2: A += alpha * x y^H (complex128), one Triton launch.

The complex buffers are read as float64 (re, im) pairs (torch.view_as_real: a view): element e
is at 2e and 2e + 1. Each program owns a [BM, BN] tile of A (rows contiguous in memory), forms
alpha * x[i] once per row, multiplies by conj(y[j]) ((a+bi)(c+di) = (ac-bd) + (ad+bc)i) and writes the
tile back; the gap between columns (lda > m) is masked out. alpha stays float64 (a
`cuDoubleComplex`). BLAS increments with base (len-1)*|inc| for inc < 0; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ger_kernel(x_ptr, y_ptr, a_ptr, m, n, lda, alpha_re: tl.float64, alpha_im: tl.float64, incx, incy, base_x, base_y,
                CONJ_Y: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN).to(tl.int64)
    rmask = rows < m
    cmask = cols < n
    xo = 2 * (base_x + rows * incx)
    xr = tl.load(x_ptr + xo, mask=rmask, other=0.0)
    xi = tl.load(x_ptr + xo + 1, mask=rmask, other=0.0)
    yo = 2 * (base_y + cols * incy)
    yr = tl.load(y_ptr + yo, mask=cmask, other=0.0)
    yi = tl.load(y_ptr + yo + 1, mask=cmask, other=0.0)
    if CONJ_Y:
        yi = -yi
    sr = alpha_re * xr - alpha_im * xi  # alpha * x[i]
    si = alpha_re * xi + alpha_im * xr
    ao = 2 * (rows[:, None] + cols[None, :] * lda)
    mask = rmask[:, None] & cmask[None, :]
    ar = tl.load(a_ptr + ao, mask=mask)
    ai = tl.load(a_ptr + ao + 1, mask=mask)
    tl.store(a_ptr + ao, ar + (sr[:, None] * yr[None, :] - si[:, None] * yi[None, :]), mask=mask)
    tl.store(a_ptr + ao + 1, ai + (sr[:, None] * yi[None, :] + si[:, None] * yr[None, :]),
             mask=mask)


def _base(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasZgerc_v2(m: int, n: int, alpha: complex, x: torch.Tensor, incx: int, y: torch.Tensor,
                   incy: int, A: torch.Tensor, lda: int) -> None:
    if m < 0 or n < 0 or lda < max(1, m) or incx == 0 or incy == 0:
        raise ValueError("cublasZgerc_v2: invalid argument")
    if m == 0 or n == 0:
        return None
    alpha = complex(alpha)
    bm, bn = (64, 32) if A.is_cuda else (128, 128)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _ger_kernel[grid](torch.view_as_real(x), torch.view_as_real(y), torch.view_as_real(A), m, n,
                      lda, float(alpha.real), float(alpha.imag), incx, incy, _base(m, incx),
                      _base(n, incy), CONJ_Y=True, BM=bm, BN=bn, num_warps=4)
    return None
