"""Shipped solution for cublasSdot_v2: a two-pass float32 reduction in Triton.

Pass 1: each of at most MAX_PARTS programs walks the vectors grid-strided in BLOCK-element
chunks and keeps a BLOCK-wide float32 accumulator, summed to one partial at the end; pass 2:
one program adds the partials into the 0-d result. The sum spreads over the whole GPU, the
order is fixed (deterministic) and nothing synchronises with the host. BLAS increments:
element i at base + i*inc, base = (n-1)*|inc| for a negative increment; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl

_MAX_PARTS = 1024


@triton.jit
def _sdot_partial(x_ptr, y_ptr, part_ptr, n, incx, incy, base_x, base_y, parts,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(pid * BLOCK, n, parts * BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = offs < n
        xv = tl.load(x_ptr + base_x + offs * incx, mask=mask, other=0.0)
        yv = tl.load(y_ptr + base_y + offs * incy, mask=mask, other=0.0)
        acc += xv * yv
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_parts(part_ptr, out_ptr, parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    vals = tl.load(part_ptr + offs, mask=offs < parts, other=0.0)
    tl.store(out_ptr, tl.sum(vals, axis=0))


def _start(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasSdot_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor,
                  incy: int) -> torch.Tensor:
    out = torch.empty((), dtype=torch.float32, device=x.device)
    gpu = x.is_cuda
    block = 2048 if gpu else 1 << 16
    parts = max(1, min(_MAX_PARTS if gpu else 4, triton.cdiv(max(n, 0), block)))
    partial = torch.empty(parts, dtype=torch.float32, device=x.device)
    if n <= 0:
        _sum_parts[(1,)](partial, out, 0, BLOCK=triton.next_power_of_2(parts))
        return out
    if incx == 0 or incy == 0:
        raise ValueError("cublasSdot_v2: incx and incy must be non-zero here")
    _sdot_partial[(parts,)](x, y, partial, n, incx, incy, _start(n, incx), _start(n, incy),
                            parts, BLOCK=block, num_warps=8 if gpu else 4)
    _sum_parts[(1,)](partial, out, parts, BLOCK=triton.next_power_of_2(parts))
    return out
