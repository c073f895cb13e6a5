"""Shipped solution for aten::unsafe_split_with_sizes.

unsafe_split_with_sizes is pure metadata: piece i is a view of `self` with `self`'s strides, the
size of `dim` set to split_sizes[i] and the storage offset moved by the sum of the earlier sizes
along `dim`. The out= overload copies each piece into the matching `out` tensor with a Triton
kernel that reads and writes through both tensors' strides (up to 6 dims, size-1 dims dropped):
each program decomposes a block of flat row-major indices into coordinates. bool is copied as
uint8.
"""

import torch
import triton
import triton.language as tl

_MAX_DIMS = 6


@triton.jit
def _strided_copy_kernel(src_ptr, dst_ptr, n,
                         s1, s2, s3, s4, s5,
                         a0, a1, a2, a3, a4, a5,
                         b0, b1, b2, b3, b4, b5,
                         BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    rem = offs
    i5 = rem % s5
    rem = rem // s5
    i4 = rem % s4
    rem = rem // s4
    i3 = rem % s3
    rem = rem // s3
    i2 = rem % s2
    rem = rem // s2
    i1 = rem % s1
    i0 = rem // s1
    src = i0 * a0 + i1 * a1 + i2 * a2 + i3 * a3 + i4 * a4 + i5 * a5
    dst = i0 * b0 + i1 * b1 + i2 * b2 + i3 * b3 + i4 * b4 + i5 * b5
    v = tl.load(src_ptr + src, mask=mask)
    tl.store(dst_ptr + dst, v, mask=mask)


def _copy_into(src, dst):
    """dst[...] = src[...] (same shape and dtype), through both tensors' strides."""
    n = src.numel()
    if n == 0:
        return
    dims = [(s, a, b) for s, a, b in zip(src.shape, src.stride(), dst.stride()) if s != 1]
    if len(dims) > _MAX_DIMS:
        raise RuntimeError(f"unsafe_split_with_sizes: more than {_MAX_DIMS} non-trivial dims")
    dims = [(1, 0, 0)] * (_MAX_DIMS - len(dims)) + dims
    s = [d[0] for d in dims]
    a = [d[1] for d in dims]
    b = [d[2] for d in dims]
    if src.dtype == torch.bool:
        src, dst = src.view(torch.uint8), dst.view(torch.uint8)
    block = 1024
    _strided_copy_kernel[(triton.cdiv(n, block),)](
        src, dst, n, s[1], s[2], s[3], s[4], s[5], a[0], a[1], a[2], a[3], a[4], a[5],
        b[0], b[1], b[2], b[3], b[4], b[5], BLOCK=block)


def _pieces(self, split_sizes, dim):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("split_with_sizes expects at least a 1-dimensional tensor")
    if not -nd <= dim < nd:
        raise IndexError(f"unsafe_split_with_sizes(): dim {dim} out of range for a tensor of "
                         f"{nd} dims")
    dim %= nd
    lengths = [int(s) for s in split_sizes]
    if any(s < 0 for s in lengths) or sum(lengths) != self.size(dim):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{self.size(dim)} (input tensor's size at dimension {dim}), but got "
                           f"split_sizes={lengths}")
    sizes, strides = list(self.shape), list(self.stride())
    out, start = [], 0
    for length in lengths:
        piece = list(sizes)
        piece[dim] = length
        out.append(self.as_strided(piece, strides,
                                   self.storage_offset() + start * strides[dim]))
        start += length
    return out


def unsafe_split_with_sizes(self: torch.Tensor, split_sizes, dim: int = 0) -> list:
    return _pieces(self, split_sizes, dim)


def unsafe_split_with_sizes_out(self: torch.Tensor, split_sizes, dim: int = 0, *, out) -> None:
    pieces = _pieces(self, split_sizes, dim)
    if len(out) != len(pieces):
        raise RuntimeError(f"unsafe_split_with_sizes: expected {len(pieces)} out tensors, got "
                           f"{len(out)}")
    for p, o in zip(pieces, out):
        if list(o.shape) != list(p.shape) or o.dtype != p.dtype:
            raise RuntimeError(f"unsafe_split_with_sizes: out tensor {list(o.shape)} {o.dtype} "
                               f"does not match piece {list(p.shape)} {p.dtype}")
        _copy_into(p, o)
    return None
