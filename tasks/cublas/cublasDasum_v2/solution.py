"""Shipped solution for cublasDasum_v2: a two-pass float64 reduction of |x| in Triton.

Pass 1: each of at most MAX_PARTS programs walks x grid-strided in BLOCK-element chunks with a
BLOCK-wide float64 accumulator of |x|; pass 2: one program adds the partials into the 0-d
result (nothing synchronises with the host). ASUM takes incx > 0 (element i at i*incx, 64-bit
offsets); n <= 0 or incx <= 0 gives 0, as in reference BLAS.
"""

import torch
import triton
import triton.language as tl

_MAX_PARTS = 1024


@triton.jit
def _dasum_partial(x_ptr, part_ptr, n, incx, parts, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float64)
    for start in range(pid * BLOCK, n, parts * BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        acc += tl.abs(tl.load(x_ptr + offs * incx, mask=offs < n, other=0.0))
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_parts(part_ptr, out_ptr, parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    vals = tl.load(part_ptr + offs, mask=offs < parts, other=0.0)
    tl.store(out_ptr, tl.sum(vals, axis=0))


def cublasDasum_v2(n: int, x: torch.Tensor, incx: int) -> torch.Tensor:
    out = torch.empty((), dtype=torch.float64, device=x.device)
    gpu = x.is_cuda
    block = 2048 if gpu else 1 << 16
    work = n if incx > 0 else 0  # BLAS: nothing to sum for incx <= 0
    parts = max(1, min(_MAX_PARTS if gpu else 4, triton.cdiv(max(work, 0), block)))
    partial = torch.empty(parts, dtype=torch.float64, device=x.device)
    if work <= 0:
        _sum_parts[(1,)](partial, out, 0, BLOCK=triton.next_power_of_2(parts))
        return out
    _dasum_partial[(parts,)](x, partial, n, incx, parts, BLOCK=block,
                             num_warps=8 if gpu else 4)
    _sum_parts[(1,)](partial, out, parts, BLOCK=triton.next_power_of_2(parts))
    return out
