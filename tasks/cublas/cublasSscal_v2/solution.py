"""Shipped solution for cublasSscal_v2: x = alpha * x in place, one Triton launch.

SCAL takes a positive increment (n <= 0 or incx <= 0 is a no-op, as in reference BLAS); element
i lies at i*incx, with 64-bit offsets. alpha is rounded to float32 first: the routine takes a
`const float *`. Each program scales BLOCK elements.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sscal_kernel(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ptrs = x_ptr + offs * incx
    tl.store(ptrs, alpha * tl.load(ptrs, mask=mask), mask=mask)


def cublasSscal_v2(n: int, alpha: float, x: torch.Tensor, incx: int) -> None:
    if n <= 0 or incx <= 0:
        return None
    alpha32 = float(torch.tensor(alpha, dtype=torch.float32))  # the routine's float alpha
    gpu = x.is_cuda
    block = 4096 if gpu else 1 << 20
    _sscal_kernel[(triton.cdiv(n, block),)](x, n, alpha32, incx, BLOCK=block,
                                            num_warps=8 if gpu else 4)
    return None
