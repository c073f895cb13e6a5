"""Shipped solution for aten::zeros: allocate, then one strided fill kernel.

The result is allocated contiguous with torch.empty on the requested device; the kernel stores
integer zeros (every supported dtype has zero as its all-zero bit pattern) through the result's
strides, viewed as the integer type of the element's width. The host drops size-1 dimensions
and merges contiguous neighbours, so a contiguous result is one flat run; `out` may have any
layout.
"""

import struct

import torch
import triton
import triton.language as tl

_MAX_RANK = 6
_INT_OF_WIDTH = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _fill_kernel(dst_ptr, value, n, z0, z1, z2, z3, z4, d0, d1, d2, d3, d4, d5,
                 NDIM: tl.constexpr, BLOCK: tl.constexpr):
    # Stores the integer `value` (the bit pattern of the fill value, see _fill_bits) through
    # the destination's strides. Dims are given innermost first: sizes z0.. and strides d0..;
    # the outermost dim (index NDIM - 1) uses d5 and needs no size.
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
    """Iteration dims (outermost first) for a tensor of this shape and strides: size-1 dims
    dropped, dims ordered by stride (writes go in memory order), neighbours merged where they
    are contiguous."""
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


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> torch.Tensor:
    out = torch.empty(list(size), dtype=torch.get_default_dtype() if dtype is None else dtype,
                      device=device)
    _fill(out, 0)
    return out


def zeros_out(size, *, out: torch.Tensor) -> torch.Tensor:
    _fill(out, 0)
    return out
