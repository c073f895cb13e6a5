"""Shipped solution for cublasCdotu_v2: a two-pass reduction in Triton.

The complex vectors are read as float32 (re, im) pairs (torch.view_as_real: a view). Pass 1:
each program sums the products of its BLOCK-element chunk, grid-strided over at most MAX_PARTS
programs, into a float32 partial pair; pass 2: one program adds the partials and writes the
result, so the sum spreads over the whole GPU and nothing synchronises with the host.
(a+bi)(c+di) = (ac-bd) + (ad+bc)i. BLAS increments: element i at base + i*inc, base =
(n-1)*|inc| for a negative increment; offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl

_MAX_PARTS = 1024


@triton.jit
def _dotu_partial(x_ptr, y_ptr, part_ptr, n, incx, incy, base_x, base_y, parts,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc_re = tl.zeros([BLOCK], dtype=tl.float32)
    acc_im = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(pid * BLOCK, n, parts * BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = offs < n
        xo = 2 * (base_x + offs * incx)
        yo = 2 * (base_y + offs * incy)
        a = tl.load(x_ptr + xo, mask=mask, other=0.0)
        b = tl.load(x_ptr + xo + 1, mask=mask, other=0.0)
        c = tl.load(y_ptr + yo, mask=mask, other=0.0)
        d = tl.load(y_ptr + yo + 1, mask=mask, other=0.0)
        acc_re += a * c - b * d
        acc_im += a * d + b * c
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


def _base(n: int, inc: int) -> int:
    return (n - 1) * -inc if inc < 0 else 0


def cublasCdotu_v2(n: int, x: torch.Tensor, incx: int, y: torch.Tensor,
                   incy: int) -> torch.Tensor:
    out = torch.empty(2, dtype=torch.float32, device=x.device)
    gpu = x.is_cuda
    block = 1024 if gpu else 1 << 16
    parts = max(1, min(_MAX_PARTS if gpu else 4, triton.cdiv(max(n, 0), block)))
    partial = torch.empty(2 * parts, dtype=torch.float32, device=x.device)
    if n <= 0:
        _sum_pairs[(1,)](partial, out, 0, BLOCK=triton.next_power_of_2(parts))
        return torch.view_as_complex(out).reshape(())
    _dotu_partial[(parts,)](torch.view_as_real(x), torch.view_as_real(y), partial, n, incx,
                            incy, _base(n, incx), _base(n, incy), parts, BLOCK=block,
                            num_warps=8 if gpu else 4)
    _sum_pairs[(1,)](partial, out, parts, BLOCK=triton.next_power_of_2(parts))
    return torch.view_as_complex(out).reshape(())
