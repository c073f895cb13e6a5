"""Shipped solution for cublasSaxpy_v2: y = alpha * x + y, one Triton launch.

A BLAS vector with increment inc has element i at i*inc for inc > 0 and at (n-1-i)*|inc| for
inc < 0; both are base + i*inc with base = (n-1)*|inc| when inc < 0, so one kernel serves every
sign. Offsets are 64-bit (n*|inc| can pass 2**31). alpha is rounded to float32 first: the routine
takes a `const float *`. Each program handles BLOCK elements; with unit increments the loads are
contiguous and vectorised.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _axpy_kernel(x_ptr, y_ptr, n, alpha, incx, incy, base_x, base_y, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + base_x + offs * incx, mask=mask)
    y = tl.load(y_ptr + base_y + offs * incy, mask=mask)
    tl.store(y_ptr + base_y + offs * incy, alpha * x + y, mask=mask)


def _base(n: int, inc: int) -> int:
    """Where element 0 of a BLAS vector lies: 0, or (n-1)*|inc| for a negative increment."""
    return (n - 1) * -inc if inc < 0 else 0


def cublasSaxpy_v2(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor,
                   incy: int) -> None:
    if n <= 0:
        return None
    if incx == 0 or incy == 0:
        raise ValueError("cublasSaxpy_v2: incx and incy must be non-zero here")
    alpha32 = float(torch.tensor(alpha, dtype=torch.float32))  # the routine's float alpha
    block = 4096 if x.is_cuda else 1 << 20
    grid = (triton.cdiv(n, block),)
    _axpy_kernel[grid](x, y, n, alpha32, incx, incy, _base(n, incx), _base(n, incy),
                       BLOCK=block, num_warps=8 if x.is_cuda else 4)
    return None
