"""Shipped solution for cublasZdotc_v2: a two-pass float64 reduction in Triton.

The complex128 vectors are read as float64 (re, im) pairs (torch.view_as_real: a view), one
[BLOCK, 2] tile per vector and chunk, split into real and imaginary columns. With x = a+bi and
y = c+di, conj(x)*y = (ac + bd) + (ad - bc)i. Pass 1: each of at most MAX_PARTS programs
accumulates its grid-strided chunks into a partial (re, im); pass 2: one program adds the
partials into the result, so nothing synchronises with the host. BLAS increments: element i at
base + i*inc, base = (n-1)*|inc| for a negative increment; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl

_MAX_PARTS = 1024


@triton.jit
def _zdotc_partial(x_ptr, y_ptr, part_ptr, n, incx, incy, base_x, base_y, parts,
                   BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    part = tl.arange(0, 2)
    acc_re = tl.zeros([BLOCK], dtype=tl.float64)
    acc_im = tl.zeros([BLOCK], dtype=tl.float64)
    for start in range(pid * BLOCK, n, parts * BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = (offs < n)[:, None] & (part < 2)[None, :]
        xo = (2 * (base_x + offs * incx))[:, None] + part[None, :]
        yo = (2 * (base_y + offs * incy))[:, None] + part[None, :]
        a, b = tl.split(tl.load(x_ptr + xo, mask=mask, other=0.0))
        c, d = tl.split(tl.load(y_ptr + yo, mask=mask, other=0.0))
        acc_re += a * c + b * d
        acc_im += a * d - b * c
    tl.store(part_ptr + 2 * pid, tl.sum(acc_re, axis=0))
    tl.store(part_ptr + 2 * pid + 1, tl.sum(acc_im, axis=0))


@triton.jit
def _sum_pairs(part_ptr, out_ptr, parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < parts
    re = tl.load(part_ptr + 2 * offs, mask=mask, other=0.0)
    im = tl.load(part_ptr + 2 * offs + 1, mask=mask, other=0.0)
    tl.store(out_ptr, tl.sum(re, axis=0))
    tl.store(out_ptr + 1, tl.sum(im, axis=0))


def _start(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasZdotc_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor,
                   incy: int) -> torch.Tensor:
    out = torch.empty(2, dtype=torch.float64, device=x.device)
    gpu = x.is_cuda
    block = 512 if gpu else 1 << 16
    parts = max(1, min(_MAX_PARTS if gpu else 4, triton.cdiv(max(n, 0), block)))
    partial = torch.empty(2 * parts, dtype=torch.float64, device=x.device)
    if n <= 0:
        _sum_pairs[(1,)](partial, out, 0, BLOCK=triton.next_power_of_2(parts))
        return torch.view_as_complex(out).reshape(())
    if incx == 0 or incy == 0:
        raise ValueError("cublasZdotc_v2: incx and incy must be non-zero here")
    _zdotc_partial[(parts,)](torch.view_as_real(x), torch.view_as_real(y), partial, n, incx,
                             incy, _start(n, incx), _start(n, incy), parts, BLOCK=block,
                             num_warps=8 if gpu else 4)
    _sum_pairs[(1,)](partial, out, parts, BLOCK=triton.next_power_of_2(parts))
    return torch.view_as_complex(out).reshape(())
