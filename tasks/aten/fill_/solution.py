"""Shipped solution for aten::fill_ (in place): one strided fill kernel, and the strided copy
kernel for a tensor value.

fill_.Scalar: the number is converted to self's dtype on the host exactly as ATen converts a
Scalar (struct packs the float bit patterns; bfloat16 rounds to nearest even from float32;
integers truncate; complex64 gets a zero imaginary part), and the kernel stores that bit pattern
through self's strides, viewed as the integer type of the same width, so one kernel serves every
dtype. fill_.Tensor: the 0-d value is broadcast to self's shape with a stride-0 view (expand)
and copied by a kernel that loads it and converts it to self's dtype in registers. The host
drops size-1 dimensions, orders the rest by self's strides and merges contiguous neighbours.
"""

import struct

import torch
import triton
import triton.language as tl

_MAX_RANK = 6
_INT_OF_WIDTH = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _copy_kernel(dst_ptr, src_ptr, n, z0, z1, z2, z3, z4,
                 d0, d1, d2, d3, d4, d5, s0, s1, s2, s3, s4, s5,
                 NDIM: tl.constexpr, TO_BOOL: tl.constexpr, FROM_BOOL: tl.constexpr,
                 VIA_F32: tl.constexpr, BLOCK: tl.constexpr):
    # Dims are given innermost first: sizes z0.., destination strides d0.., source strides
    # s0..; the outermost dim (index NDIM - 1) uses d5/s5 and needs no size.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    do = tl.zeros_like(offs)
    so = tl.zeros_like(offs)
    if NDIM > 1:
        i = r % z0
        do += i * d0
        so += i * s0
        r = r // z0
    if NDIM > 2:
        i = r % z1
        do += i * d1
        so += i * s1
        r = r // z1
    if NDIM > 3:
        i = r % z2
        do += i * d2
        so += i * s2
        r = r // z2
    if NDIM > 4:
        i = r % z3
        do += i * d3
        so += i * s3
        r = r // z3
    if NDIM > 5:
        i = r % z4
        do += i * d4
        so += i * s4
        r = r // z4
    do += r * d5
    so += r * s5
    x = tl.load(src_ptr + so, mask=mask)
    if FROM_BOOL:
        x = x.to(tl.int8)
    if TO_BOOL:
        y = x != 0
    elif VIA_F32:
        # bfloat16 destinations are reached through float32 (exact for every narrower source)
        y = x.to(tl.float32).to(dst_ptr.dtype.element_ty)
    else:
        y = x.to(dst_ptr.dtype.element_ty)
    tl.store(dst_ptr + do, y, mask=mask)


@triton.jit
def _fill_kernel(dst_ptr, value, n, z0, z1, z2, z3, z4, d0, d1, d2, d3, d4, d5,
                 NDIM: tl.constexpr, BLOCK: tl.constexpr):
    # Stores the integer `value` (the bit pattern of the fill value, see _fill_bits) through
    # the destination's strides, dims innermost first as in _copy_kernel.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    do = tl.zeros_like(offs)
    if NDIM > 1:
        do += (r % z0) * d0
        r = r // z0
    if NDIM > 2:
        do += (r % z1) * d1
        r = r // z1
    if NDIM > 3:
        do += (r % z2) * d2
        r = r // z2
    if NDIM > 4:
        do += (r % z3) * d3
        r = r // z3
    if NDIM > 5:
        do += (r % z4) * d4
        r = r // z4
    do += r * d5
    v = tl.full([BLOCK], value, dtype=dst_ptr.dtype.element_ty)
    tl.store(dst_ptr + do, v, mask=mask)


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU 4096
    # elements per program keeps the stores wide and the grid short.
    return 65536 if t.device.type == "cpu" else 4096


def _plan(shape, *strides):
    """Iteration dims (outermost first) for tensors of one shape with the given strides: size-1
    dims dropped, dims ordered by the first tensor's strides (its writes go in memory order),
    neighbours merged where every tensor is contiguous across them."""
    dims = sorted(((sz,) + tuple(st[i] for st in strides) for i, sz in enumerate(shape)
                   if sz != 1), key=lambda d: d[1:], reverse=True)
    merged = []
    for d in dims:
        if merged and all(merged[-1][k] == d[0] * d[k] for k in range(1, len(d))):
            merged[-1] = (merged[-1][0] * d[0],) + d[1:]
        else:
            merged.append(d)
    if not merged:
        merged = [(1,) + (0,) * len(strides)]
    return merged


def _pack(dims, k):
    """Sizes (innermost first, all but the outermost, padded with 1) and strides of tensor k
    (innermost first, padded with 0, the outermost last) for the kernels."""
    rev = dims[::-1]
    sizes = [d[0] for d in rev[:-1]] + [1] * (_MAX_RANK - len(dims))
    strides = [d[k] for d in rev[:-1]] + [0] * (_MAX_RANK - len(dims)) + [rev[-1][k]]
    return sizes[:_MAX_RANK - 1], strides


def _copy_into(dst: torch.Tensor, src: torch.Tensor) -> None:
    """dst[...] = src, src broadcast to dst's shape and converted to dst's dtype."""
    if dst.numel() == 0:
        return
    src = src.expand(dst.shape)
    if dst.dtype.is_complex and src.dtype.is_complex:
        _copy_into(torch.view_as_real(dst), torch.view_as_real(src))
        return
    if src.dtype.is_complex:  # the imaginary part is discarded
        _copy_into(dst, torch.view_as_real(src).select(-1, 0))
        return
    if dst.dtype.is_complex:  # the imaginary part becomes zero
        parts = torch.view_as_real(dst)
        _copy_into(parts.select(-1, 0), src)
        _fill(parts.select(-1, 1), 0)
        return
    to_bool = from_bool = via_f32 = False
    if dst.dtype == src.dtype:
        # a plain copy moves bits: reinterpret both as the integer type of the same width
        width = _INT_OF_WIDTH[dst.element_size()]
        dst, src = dst.view(width), src.view(width)
    else:
        to_bool = dst.dtype == torch.bool
        from_bool = src.dtype == torch.bool
        via_f32 = dst.dtype == torch.bfloat16
    dims = _plan(dst.shape, dst.stride(), src.stride())
    if len(dims) > _MAX_RANK:
        for k in range(dst.shape[0]):
            _copy_into(dst.select(0, k), src.select(0, k))
        return
    zs, ds = _pack(dims, 1)
    _, ss = _pack(dims, 2)
    n = dst.numel()
    block = _block(dst)
    _copy_kernel[(triton.cdiv(n, block),)](dst, src, n, *zs, *ds, *ss, NDIM=len(dims),
                                           TO_BOOL=to_bool, FROM_BOOL=from_bool,
                                           VIA_F32=via_f32, BLOCK=block, num_warps=4)


def _signed(bits: int, nbytes: int) -> int:
    top = 1 << (8 * nbytes)
    bits %= top
    return bits - top if bits >= top // 2 else bits


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _fill_bits(value, dtype: torch.dtype) -> int:
    """The bit pattern, as a signed integer of the dtype's width, of `value` in the real
    dtype `dtype`."""
    if dtype == torch.bool:
        return 1 if value != 0 else 0
    if not dtype.is_floating_point:
        return _signed(int(value), dtype.itemsize)  # int() truncates toward zero, like ATen
    x = float(value)
    if dtype == torch.float64:
        return struct.unpack("<q", struct.pack("<d", x))[0]
    if dtype == torch.float32:
        return _signed(_f32_bits(x), 4)
    if dtype == torch.float16:
        # ATen rounds a double to float first, then to half
        return struct.unpack("<h", struct.pack("<e", struct.unpack("<f", struct.pack("<f", x))[0]))[0]
    # bfloat16: round the float32 bits to nearest even on the upper half; NaN stays a quiet NaN
    b = _f32_bits(x)
    if x != x:
        return _signed(0x7FC0, 2)
    b += 0x7FFF + ((b >> 16) & 1)
    return _signed((b >> 16) & 0xFFFF, 2)


def _fill(dst: torch.Tensor, value) -> None:
    """Every element of dst (through its strides) becomes `value` converted to dst's dtype."""
    if dst.numel() == 0:
        return
    if dst.dtype.is_complex:  # the real and the imaginary parts, as two real fills
        parts = torch.view_as_real(dst)
        _fill(parts.select(-1, 0), complex(value).real)
        _fill(parts.select(-1, 1), complex(value).imag)
        return
    bits = _fill_bits(value, dst.dtype)
    dst = dst.view(_INT_OF_WIDTH[dst.element_size()])
    dims = _plan(dst.shape, dst.stride())
    if len(dims) > _MAX_RANK:
        for k in range(dst.shape[0]):
            _fill(dst.select(0, k), value)
        return
    zs, ds = _pack(dims, 1)
    n = dst.numel()
    block = _block(dst)
    _fill_kernel[(triton.cdiv(n, block),)](dst, bits, n, *zs, *ds, NDIM=len(dims), BLOCK=block,
                                           num_warps=4)


def fill__Scalar(self: torch.Tensor, value) -> torch.Tensor:
    _fill(self, value)
    return self


def fill__Tensor(self: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    _copy_into(self, value)
    return self
