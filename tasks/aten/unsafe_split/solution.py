"""Shipped solution for aten::unsafe_split.

unsafe_split.Tensor is pure metadata: piece i is a view of `self` with `self`'s strides, the
size of `dim` cut to the piece's length and the storage offset moved by i * split_size steps
along `dim`. unsafe_split.Tensor_out copies each piece into the matching `out` tensor with a
Triton kernel that reads and writes through both tensors' strides (up to 6 dims, size-1 dims
dropped): each program decomposes a block of flat row-major indices into coordinates. bool is
copied as uint8.
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
        raise RuntimeError(f"unsafe_split: more than {_MAX_DIMS} non-trivial dims")
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


def _pieces(self, split_size, dim):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if not -nd <= dim < nd:
        raise IndexError(f"unsafe_split(): dim {dim} out of range for a tensor of {nd} dims")
    dim %= nd
    size = self.size(dim)
    split_size = int(split_size)
    if split_size < 0 or (split_size == 0 and size != 0):
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    count = max((size + split_size - 1) // split_size, 1) if split_size else 1
    sizes, strides = list(self.shape), list(self.stride())
    out = []
    for i in range(count):
        start = i * split_size
        length = min(split_size, size - start) if split_size else 0
        piece = list(sizes)
        piece[dim] = length
        out.append(self.as_strided(piece, strides,
                                   self.storage_offset() + start * strides[dim]))
    return out


def unsafe_split_Tensor(self: torch.Tensor, split_size: int, dim: int = 0) -> list:
    return _pieces(self, split_size, dim)


def unsafe_split_Tensor_out(self: torch.Tensor, split_size: int, dim: int = 0, *, out) -> None:
    pieces = _pieces(self, split_size, dim)
    if len(out) != len(pieces):
        raise RuntimeError(f"unsafe_split: expected {len(pieces)} out tensors, got {len(out)}")
    for p, o in zip(pieces, out):
        if list(o.shape) != list(p.shape) or o.dtype != p.dtype:
            raise RuntimeError(f"unsafe_split: out tensor {list(o.shape)} {o.dtype} does not "
                               f"match piece {list(p.shape)} {p.dtype}")
        _copy_into(p, o)
    return None
