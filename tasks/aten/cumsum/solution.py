"""Shipped solution for aten::cumsum.

The input is seen as a 3-D array (outer, L, inner) where L is the scanned dimension; the outer
and inner dimensions are collapsed through the input's own strides when they allow it (else the
input is made contiguous once). Every (outer, inner) pair is an independent scan, called a
column here. A program owns a block of columns and walks along L in chunks: each chunk is
scanned with tl.cumsum and offset by a running carry. When there are too few columns to fill the
GPU, L is cut into segments: a first kernel sums each segment, and the scan kernel of segment s
starts its carry at the sum of the segments before it.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _segment_sums_kernel(x_ptr, part_ptr, n_cols, L, inner, s_outer, s_scan, s_inner, seg_len,
                         ACC: tl.constexpr, CAST: tl.constexpr, BLOCK_L: tl.constexpr,
                         BLOCK_C: tl.constexpr):
    pid_c = tl.program_id(0)
    seg = tl.program_id(1)
    cols = pid_c.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < n_cols
    o = cols // inner
    i = cols - o * inner
    xbase = o * s_outer + i * s_inner
    acc = tl.zeros([BLOCK_L, BLOCK_C], ACC)
    start = seg.to(tl.int64) * seg_len
    for l0 in range(0, seg_len, BLOCK_L):
        ls = start + l0 + tl.arange(0, BLOCK_L)
        m = (ls < L)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + xbase[None, :] + ls[:, None] * s_scan, mask=m, other=0)
        acc += x.to(CAST).to(ACC)
    tl.store(part_ptr + seg.to(tl.int64) * n_cols + cols, tl.sum(acc, axis=0), mask=cmask)


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, part_ptr, n_cols, L, inner, s_outer, s_scan, s_inner, seg_len,
                   ACC: tl.constexpr, CAST: tl.constexpr, BLOCK_L: tl.constexpr,
                   BLOCK_C: tl.constexpr, BLOCK_P: tl.constexpr, SEGMENTED: tl.constexpr):
    pid_c = tl.program_id(0)
    seg = tl.program_id(1)
    cols = pid_c.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < n_cols
    o = cols // inner
    i = cols - o * inner
    xbase = o * s_outer + i * s_inner
    ybase = o * L * inner + i
    carry = tl.zeros([BLOCK_C], ACC)
    if SEGMENTED:
        # carry-in: the sums of all earlier segments of these columns
        for p0 in range(0, seg, BLOCK_P):
            ps = p0 + tl.arange(0, BLOCK_P)
            pm = (ps < seg)[:, None] & cmask[None, :]
            p = tl.load(part_ptr + ps.to(tl.int64)[:, None] * n_cols + cols[None, :], mask=pm, other=0)
            carry += tl.sum(p, axis=0)
    start = seg.to(tl.int64) * seg_len
    for l0 in range(0, seg_len, BLOCK_L):
        ls = start + l0 + tl.arange(0, BLOCK_L)
        m = (ls < L)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + xbase[None, :] + ls[:, None] * s_scan, mask=m, other=0)
        x = x.to(CAST).to(ACC)
        s = tl.cumsum(x, axis=0) + carry[None, :]
        tl.store(y_ptr + ybase[None, :] + ls[:, None] * inner, s.to(y_ptr.dtype.element_ty), mask=m)
        carry += tl.sum(x, axis=0)


_TL = {
    torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
    torch.float64: tl.float64, torch.int8: tl.int8, torch.int16: tl.int16, torch.int32: tl.int32,
    torch.int64: tl.int64, torch.uint8: tl.uint8, torch.bool: tl.int1,
}


def _collapse(sizes, strides):
    """(numel, stride) of dims that can be walked as one dim with one stride, else None."""
    dims = [(n, s) for n, s in zip(sizes, strides) if n != 1]
    numel = 1
    for n, _ in dims:
        numel *= n
    if not dims:
        return numel, 1
    for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return None
    return numel, dims[-1][1]


def cumsum(self: torch.Tensor, dim: int, *, dtype=None) -> torch.Tensor:
    if dtype is None:
        floating = self.dtype.is_floating_point
        dtype = self.dtype if floating else torch.int64
    out = torch.empty(self.shape, dtype=dtype, device=self.device)
    nd = self.dim()
    d = dim + max(nd, 1) if dim < 0 else dim
    if not 0 <= d < max(nd, 1):
        raise IndexError(f"cumsum: dim {dim} out of range for a {nd}-d tensor")
    if out.numel() == 0:
        return out
    x = self
    if nd == 0:
        sizes, strides, d = [1], [1], 0
    else:
        sizes, strides = list(x.shape), list(x.stride())
    outer = _collapse(sizes[:d], strides[:d])
    inner = _collapse(sizes[d + 1:], strides[d + 1:])
    if outer is None or inner is None:
        x = x.contiguous()
        strides = list(x.stride()) if nd else [1]
        outer = _collapse(sizes[:d], strides[:d])
        inner = _collapse(sizes[d + 1:], strides[d + 1:])
    n_outer, s_outer = outer
    n_inner, s_inner = inner
    L, s_scan = sizes[d], strides[d]
    n_cols = n_outer * n_inner

    if dtype.is_floating_point:
        acc = tl.float64 if dtype == torch.float64 else tl.float32
    else:
        acc = tl.int64
    # elements per tile; the CPU interpreter runs programs one by one: give it larger tiles
    tile = 4096 if x.device.type != "cpu" else 65536
    if n_inner == 1:
        block_l = min(triton.next_power_of_2(L), tile // 4, 8192)
        block_c = min(triton.next_power_of_2(n_cols), max(1, tile // block_l))
    else:
        block_c = min(triton.next_power_of_2(n_cols), 64)
        block_l = min(triton.next_power_of_2(L), max(1, tile // block_c))
    n_cblk = triton.cdiv(n_cols, block_c)
    n_chunks = triton.cdiv(L, block_l)
    n_seg = 1
    if n_cblk < 256 and n_chunks >= 8:
        n_seg = min(triton.cdiv(n_chunks, 2), triton.cdiv(512, n_cblk))
    seg_len = triton.cdiv(n_chunks, n_seg) * block_l
    n_seg = triton.cdiv(L, seg_len)
    warps = 8 if block_l * block_c >= 4096 else 4
    if n_seg > 1:
        part = torch.empty((n_seg, n_cols), dtype=torch.float64 if acc == tl.float64 else
                           (torch.float32 if acc == tl.float32 else torch.int64), device=x.device)
        _segment_sums_kernel[(n_cblk, n_seg)](
            x, part, n_cols, L, n_inner, s_outer, s_scan, s_inner, seg_len,
            ACC=acc, CAST=_TL[dtype], BLOCK_L=block_l, BLOCK_C=block_c, num_warps=warps)
    else:
        part = out  # unused
    block_p = min(triton.next_power_of_2(max(n_seg, 1)), max(1, 4096 // block_c))
    _cumsum_kernel[(n_cblk, n_seg)](
        x, out, part, n_cols, L, n_inner, s_outer, s_scan, s_inner, seg_len,
        ACC=acc, CAST=_TL[dtype], BLOCK_L=block_l, BLOCK_C=block_c, BLOCK_P=block_p,
        SEGMENTED=n_seg > 1, num_warps=warps)
    return out
