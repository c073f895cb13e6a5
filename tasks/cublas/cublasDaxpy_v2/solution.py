"""Shipped solution for cublasDaxpy_v2: y = alpha * x + y in float64, one Triton launch.

Element i of a BLAS vector with increment inc lies at base + i*inc, with base = (n-1)*|inc| for a
negative increment and 0 otherwise, so one kernel serves both signs. Offsets are 64-bit. Each
program handles BLOCK elements; unit increments give contiguous, vectorised accesses.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _daxpy_kernel(x_ptr, y_ptr, n, alpha: tl.float64, incx, incy, base_x, base_y, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xv = tl.load(x_ptr + base_x + offs * incx, mask=mask)
    yo = base_y + offs * incy
    yv = tl.load(y_ptr + yo, mask=mask)
    tl.store(y_ptr + yo, alpha * xv + yv, mask=mask)


def _start(n: int, inc: int) -> int:
    """Buffer index of element 0: 0, or (n-1)*|inc| when the increment is negative."""
    return (n - 1) * -inc if inc < 0 else 0


def cublasDaxpy_v2(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor,
                   incy: int) -> None:
    if n <= 0:
        return None
    if incx == 0 or incy == 0:
        raise ValueError("cublasDaxpy_v2: incx and incy must be non-zero here")
    gpu = y.is_cuda
    block = 2048 if gpu else 1 << 20
    _daxpy_kernel[(triton.cdiv(n, block),)](x, y, n, float(alpha), incx, incy, _start(n, incx),
                                            _start(n, incy), BLOCK=block,
                                            num_warps=8 if gpu else 4)
    return None
