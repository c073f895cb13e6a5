"""Shipped solution for aten::rot90: a tiled transpose for quarter turns, else a strided gather-copy.

A rotation by k quarter turns in the plane (d0, d1) is a flip and a transpose: k = 1 flips d1 and
swaps d0 and d1, k = 2 flips both, k = 3 flips d0 and swaps. So the rotated tensor is the input
read with permuted strides, negated on the flipped dimensions, from a base moved to the last
element of those dimensions. The kernel walks the output's logical elements (up to 6 dims,
padded with size-1 dims), computes both the source offset (signed strides) and the destination
offset (the output's strides, so a non-contiguous `out` is written in place) and copies values
bit for bit (bool through a uint8 view). Quarter turns whose source's contiguous dim becomes the
output's second-to-last dim, with the leading dims mergeable into one, take a tiled kernel
instead (see _rot90_tile_kernel).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rot90_kernel(src_ptr, dst_ptr, total, base,
                  n1, n2, n3, n4, n5,
                  s0, s1, s2, s3, s4, s5,
                  t0, t1, t2, t3, t4, t5,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    r = offs
    i5 = r % n5
    r = r // n5
    i4 = r % n4
    r = r // n4
    i3 = r % n3
    r = r // n3
    i2 = r % n2
    r = r // n2
    i1 = r % n1
    i0 = r // n1
    src = base + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3 + i4 * s4 + i5 * s5
    dst = i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5
    v = tl.load(src_ptr + src, mask=ok)
    tl.store(dst_ptr + dst, v, mask=ok)


@triton.jit
def _rot90_tile_kernel(src_ptr, dst_ptr, base, R, C, sb, s_c, tb, t_r, t_c,
                       NEG: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    # out[b, r, c] = src[base + b*sb + r*(+-1) + c*s_c]: the source's contiguous dim is the
    # output's row dim. Tiles are read along rows (unit stride, written as `+ t` so that the
    # compiler sees it) and written along columns; the compiler transposes through shared
    # memory in between.
    t = tl.arange(0, BR)
    r_top = tl.program_id(0).to(tl.int64) * BR
    if NEG:
        rows = r_top + BR - 1 - t
        src_rows = -(r_top + BR - 1) + t
    else:
        rows = r_top + t
        src_rows = rows
    cols = tl.program_id(1).to(tl.int64) * BC + tl.arange(0, BC)
    b = tl.program_id(2).to(tl.int64)
    m = (rows < R)[:, None] & (cols < C)[None, :]
    v = tl.load(src_ptr + (base + b * sb) + src_rows[:, None] + cols[None, :] * s_c, mask=m)
    tl.store(dst_ptr + b * tb + rows[:, None] * t_r + cols[None, :] * t_c, v, mask=m)


def _batch(sizes, sstr, dstr):
    """(count, source stride, destination stride) of dims 0..3 merged into one, or None."""
    dims = [d for d in range(4) if sizes[d] != 1]
    if not dims:
        return 1, 0, 0
    for a, b in zip(dims, dims[1:]):
        if b != a + 1 or sstr[a] != sstr[b] * sizes[b] or dstr[a] != dstr[b] * sizes[b]:
            return None
    n = 1
    for d in dims:
        n *= sizes[d]
    return n, sstr[dims[-1]], dstr[dims[-1]]


_MAX_DIMS = 6
_TILE = 64


def _rot90_into(self, k, dims, out):
    nd = self.dim()
    dims = [int(d) for d in dims]
    if len(dims) != 2:
        raise RuntimeError("rot90: expected 2 dims")
    if nd < 2:
        raise RuntimeError("rot90: expected a tensor of at least 2 dims")
    d0, d1 = dims
    if not (-nd <= d0 < nd and -nd <= d1 < nd):
        raise IndexError("rot90: dim out of range")
    d0 %= nd
    d1 %= nd
    if d0 == d1:
        raise RuntimeError("rot90: the two dims must differ")
    if nd > _MAX_DIMS:
        raise RuntimeError(f"rot90: at most {_MAX_DIMS} dims are supported")
    k = int(k) % 4
    perm = list(range(nd))
    flips = []
    if k == 1:
        flips = [d1]
    elif k == 2:
        flips = [d0, d1]
    elif k == 3:
        flips = [d0]
    if k % 2 == 1:
        perm[d0], perm[d1] = d1, d0
    shape = [self.shape[p] for p in perm]
    if out is None:
        out = torch.empty(shape, dtype=self.dtype, device=self.device)
    elif list(out.shape) != shape or out.dtype != self.dtype:
        raise RuntimeError(f"rot90: out must be {self.dtype} of shape {shape}")
    total = out.numel()
    if total == 0:
        return out
    base = 0
    for d in flips:
        base += (self.shape[d] - 1) * self.stride(d)
    sstr = [-self.stride(p) if p in flips else self.stride(p) for p in perm]
    pad = _MAX_DIMS - nd
    sizes = [1] * pad + shape
    sstr = [0] * pad + sstr
    dstr = [0] * pad + [out.stride(d) for d in range(nd)]
    src, dst = self, out
    if self.dtype == torch.bool:
        src, dst = self.view(torch.uint8), out.view(torch.uint8)
    merged = _batch(sizes, sstr, dstr)
    if (merged and abs(sstr[4]) == 1 and abs(sstr[5]) != 1 and merged[0] <= 65535
            and triton.cdiv(sizes[5], _TILE) <= 65535):
        # A quarter turn whose source rows are the output's columns: a tiled transpose, so that
        # both the reads and the writes are coalesced (the element-wise walk below reads one
        # element per row of the source: 0.34x of ATen on 8192^2 on an H200,
        # bench/results/h200-2026-12-03d).
        nb, sb, tb = merged
        grid = (triton.cdiv(sizes[4], _TILE), triton.cdiv(sizes[5], _TILE), nb)
        _rot90_tile_kernel[grid](src, dst, base, sizes[4], sizes[5], sb, sstr[5], tb, dstr[4],
                                 dstr[5], NEG=sstr[4] < 0, BR=_TILE, BC=_TILE, num_warps=4)
        return out
    block = 1024 if self.device.type != "cpu" else 65536
    grid = (triton.cdiv(total, block),)
    _rot90_kernel[grid](src, dst, total, base,
                        sizes[1], sizes[2], sizes[3], sizes[4], sizes[5],
                        sstr[0], sstr[1], sstr[2], sstr[3], sstr[4], sstr[5],
                        dstr[0], dstr[1], dstr[2], dstr[3], dstr[4], dstr[5],
                        BLOCK=block, num_warps=4)
    return out


def rot90(self: torch.Tensor, k: int = 1, dims=(0, 1)) -> torch.Tensor:
    return _rot90_into(self, k, dims, None)


def rot90_out(self: torch.Tensor, k: int = 1, dims=(0, 1), *, out: torch.Tensor) -> torch.Tensor:
    return _rot90_into(self, k, dims, out)
