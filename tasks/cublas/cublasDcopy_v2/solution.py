"""Shipped solution for cublasDcopy_v2: y = x for strided float64 vectors, one Triton launch.

Element i of a BLAS vector with increment inc lies at base + i*inc, base = (n-1)*|inc| for a
negative increment and 0 otherwise. Offsets are 64-bit. Each program copies BLOCK elements.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _dcopy_kernel(x_ptr, y_ptr, n, incx, incy, base_x, base_y, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + base_x + offs * incx, mask=mask)
    tl.store(y_ptr + base_y + offs * incy, v, mask=mask)


def _start(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasDcopy_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
    if n <= 0:
        return None
    if incx == 0 or incy == 0:
        raise ValueError("cublasDcopy_v2: incx and incy must be non-zero here")
    gpu = y.is_cuda
    block = 2048 if gpu else 1 << 20
    _dcopy_kernel[(triton.cdiv(n, block),)](x, y, n, incx, incy, _start(n, incx),
                                            _start(n, incy), BLOCK=block,
                                            num_warps=8 if gpu else 4)
    return None
