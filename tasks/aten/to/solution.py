"""Shipped solution for aten::to: return self when nothing changes, else one strided
copy-and-convert kernel.

Each overload resolves its target dtype and device (prim overloads map ATen's ScalarType codes
through a table). When both equal self's, copy is False and the memory format is None,
preserve_format or the one self's strides suggest, self is returned as ATen does. Otherwise the
result is allocated with torch.empty_like(self, dtype=..., memory_format=...) and
a kernel reads self and writes the result through their own strides, converting in registers
(bool targets get x != 0, bool sources go through int8, bfloat16 targets through float32);
equal dtypes move bits as the integer type of the element's width. The host orders the
dimensions by the destination's strides, drops size-1 dimensions and merges neighbours that are
contiguous in both tensors, so dense layouts become one flat run.
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


_DTYPE_OF_CODE = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
                  5: torch.float16, 6: torch.float32, 7: torch.float64, 9: torch.complex64,
                  10: torch.complex128, 11: torch.bool, 15: torch.bfloat16}


def _same_device(a: torch.device, b) -> bool:
    b = torch.device(b)
    return a.type == b.type and (b.index is None or a.index is None or a.index == b.index)


def _channels_last_like(sizes, strides, order) -> bool:
    """c10's test of whether strides are those of a channels-last layout (dimension 1
    innermost), `order` naming the dimensions innermost first; ambiguous cases say no."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
            return False
        low = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def _suggested_format(t: torch.Tensor):
    """The memory format ATen reads from t's strides (Tensor::suggest_memory_format)."""
    if t.dim() == 4 and _channels_last_like(t.shape, t.stride(), (1, 3, 2, 0)):
        return torch.channels_last
    if t.dim() == 5 and _channels_last_like(t.shape, t.stride(), (1, 4, 3, 2, 0)):
        return torch.channels_last_3d
    return torch.contiguous_format


def _convert(self: torch.Tensor, dtype, device, copy: bool, memory_format=None) -> torch.Tensor:
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else torch.device(device)
    # ATen returns self for a memory format its strides already suggest (a transposed matrix
    # counts as contiguous_format there), not only for preserve_format
    keeps_format = (memory_format is None or memory_format == torch.preserve_format
                    or memory_format == _suggested_format(self))
    if not copy and dtype == self.dtype and _same_device(self.device, device) and keeps_format:
        return self
    fmt = torch.preserve_format if memory_format is None else memory_format
    out = torch.empty_like(self, dtype=dtype, device=device, memory_format=fmt)
    _copy_into(out, self)
    return out


def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):
    return _convert(self, dtype, None, copy, memory_format)


def to_device(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    return _convert(self, dtype, device, copy, memory_format)


def to_other(self, other, non_blocking=False, copy=False, memory_format=None):
    return _convert(self, other.dtype, other.device, copy, memory_format)


def to_dtype_layout(self, *, dtype=None, layout=None, device=None, pin_memory=None,
                    non_blocking=False, copy=False, memory_format=None):
    return _convert(self, dtype, device, copy, memory_format)


def to_prim_Device(self, device, dtype=None, non_blocking=False, copy=False):
    return _convert(self, None if dtype is None else _DTYPE_OF_CODE[dtype], device, copy)


def to_prim_dtype(self, dtype=None, non_blocking=False, copy=False):
    return _convert(self, None if dtype is None else _DTYPE_OF_CODE[dtype], None, copy)


def to_prim_other(self, non_blocking=False, copy=False):
    return _convert(self, None, None, copy)
