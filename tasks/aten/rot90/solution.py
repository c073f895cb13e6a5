"""Shipped solution for aten::rot90: one strided gather-copy kernel.

A rotation by k quarter turns in the plane (d0, d1) is a flip and a transpose: k = 1 flips d1 and
swaps d0 and d1, k = 2 flips both, k = 3 flips d0 and swaps. So the rotated tensor is the input
read with permuted strides, negated on the flipped dimensions, from a base moved to the last
element of those dimensions. The kernel walks the output's logical elements (up to 6 dims,
padded with size-1 dims), computes both the source offset (signed strides) and the destination
offset (the output's strides, so a non-contiguous `out` is written in place) and copies values
bit for bit (bool through a uint8 view).
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


_MAX_DIMS = 6


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
