"""Shipped solution for aten::le: elementwise less-or-equal kernels writing a bool (or any) output.

The comparison happens in the common dtype of the operands (torch.result_type, which follows the
tensor/0-d/scalar promotion rules). Float operands are compared in float32 after being rounded to
the common dtype: rounding to float16 uses the hardware conversion, rounding to bfloat16 is done
with integer ops (round to nearest even), which is exact and independent of how the backend
converts. A Python scalar is rounded to the common dtype on the host.

When every operand is dense with the same strides (contiguous, or all transposed alike) one flat
kernel walks the storage linearly. Otherwise operands are broadcast as stride-0 views (no copy),
dimensions that are contiguous with their neighbour in every operand (output included) are merged,
and a strided kernel turns each flat index into per-operand offsets, writing through the output's
own strides (so a non-contiguous `out` is written in place).
"""

import math
import struct

import torch
import triton
import triton.language as tl

_MAX_RANK = 6


@triton.jit
def _round_bf16(x):
    # float32 -> float32 holding the nearest bfloat16 (ties to even); NaN stays NaN.
    bits = x.to(tl.uint32, bitcast=True)
    r = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return tl.where(x != x, x, r.to(tl.float32, bitcast=True))


@triton.jit
def _to_cmp(x, CDT: tl.constexpr, CAST: tl.constexpr):
    # CAST: 0 none (already the compute type), 1 float via CDT then float32, 2 bfloat16 rounding
    # (float32 holding a bfloat16 value), 3 plain conversion to CDT (integer, bool, float64)
    if CAST == 1:
        return x.to(CDT).to(tl.float32)
    elif CAST == 2:
        return _round_bf16(x.to(tl.float32))
    elif CAST == 3:
        return x.to(CDT)
    else:
        return x


@triton.jit
def _cmp(a, b):
    return a <= b


@triton.jit
def _flat_kernel(a_ptr, b_ptr, out_ptr, n, value,
                 CDT: tl.constexpr, CAST_A: tl.constexpr, CAST_B: tl.constexpr,
                 SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = _to_cmp(tl.load(a_ptr + offs, mask=mask), CDT, CAST_A)
    if SCALAR:
        b = value
    else:
        b = _to_cmp(tl.load(b_ptr + offs, mask=mask), CDT, CAST_B)
    tl.store(out_ptr + offs, _cmp(a, b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _strided_kernel(a_ptr, b_ptr, out_ptr, n, value,
                    z0, z1, z2, z3, z4, a0, a1, a2, a3, a4, a5, b0, b1, b2, b3, b4, b5,
                    o0, o1, o2, o3, o4, o5, NDIM: tl.constexpr,
                    CDT: tl.constexpr, CAST_A: tl.constexpr, CAST_B: tl.constexpr,
                    SCALAR: tl.constexpr, BLOCK: tl.constexpr):
    # Dims are given innermost first: sizes z0.. and strides per operand; the outermost dim
    # (index NDIM - 1) needs no size. Only the NDIM dims in use cost a division.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    a_off = tl.zeros_like(offs)
    b_off = tl.zeros_like(offs)
    o_off = tl.zeros_like(offs)
    if NDIM > 1:
        c = r % z0
        r = r // z0
        a_off += c * a0
        b_off += c * b0
        o_off += c * o0
    if NDIM > 2:
        c = r % z1
        r = r // z1
        a_off += c * a1
        b_off += c * b1
        o_off += c * o1
    if NDIM > 3:
        c = r % z2
        r = r // z2
        a_off += c * a2
        b_off += c * b2
        o_off += c * o2
    if NDIM > 4:
        c = r % z3
        r = r // z3
        a_off += c * a3
        b_off += c * b3
        o_off += c * o3
    if NDIM > 5:
        c = r % z4
        r = r // z4
        a_off += c * a4
        b_off += c * b4
        o_off += c * o4
    a_off += r * a5
    b_off += r * b5
    o_off += r * o5
    a = _to_cmp(tl.load(a_ptr + a_off, mask=mask), CDT, CAST_A)
    if SCALAR:
        b = value
    else:
        b = _to_cmp(tl.load(b_ptr + b_off, mask=mask), CDT, CAST_B)
    tl.store(out_ptr + o_off, _cmp(a, b).to(out_ptr.dtype.element_ty), mask=mask)


_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
       torch.float64: tl.float64, torch.int8: tl.int8, torch.int16: tl.int16,
       torch.int32: tl.int32, torch.int64: tl.int64, torch.uint8: tl.uint8, torch.bool: tl.int1}


def _cast_mode(src: torch.dtype, cdt: torch.dtype) -> int:
    """How an operand of dtype src reaches the compute dtype cdt (see _to_cmp)."""
    if cdt.is_floating_point and cdt != torch.float64:
        if cdt == torch.bfloat16 and src != torch.bfloat16:
            return 2
        return 1
    return 0 if src == cdt else 3


def _host_scalar(value, cdt: torch.dtype):
    """The Python scalar converted to the compute dtype, as a Python number."""
    if cdt == torch.bool:
        return int(bool(value))
    if not cdt.is_floating_point:
        return int(value)
    v = float(value)
    if cdt == torch.float64 or math.isnan(v) or math.isinf(v):
        return v
    try:  # torch goes double -> float -> half/bfloat16
        v = struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)
    if cdt == torch.float16:
        try:
            return struct.unpack("e", struct.pack("e", v))[0]
        except OverflowError:
            return math.copysign(math.inf, v)
    if cdt == torch.bfloat16:
        bits = struct.unpack("I", struct.pack("f", v))[0]
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000) & 0xFFFFFFFF
        return struct.unpack("f", struct.pack("I", bits))[0]
    return v


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU 4096
    # elements per program (16 per thread with 8 warps) gives wide loads and many CTAs.
    return 65536 if t.device.type == "cpu" else 4096


def _is_dense(t: torch.Tensor) -> bool:
    """Whether t covers a gap-free block of storage (any dimension order, no overlap)."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _merge_dims(shape, strides):
    """Drop size-1 dims and merge neighbours contiguous with each other in every operand."""
    sizes = []
    merged = [[] for _ in strides]
    for d, size in enumerate(shape):
        if size == 1:
            continue
        if sizes and all(m[-1] == size * st[d] for m, st in zip(merged, strides)):
            sizes[-1] *= size
            for m, st in zip(merged, strides):
                m[-1] = st[d]
            continue
        sizes.append(size)
        for m, st in zip(merged, strides):
            m.append(st[d])
    return sizes, merged


def _launch(a, b, out, value, cdt):
    """out[...] = cmp(a, b) with a, b already expanded to out's shape (b None: scalar value)."""
    n = out.numel()
    if n == 0:
        return
    k_cdt = _TL[cdt]
    cast_a = _cast_mode(a.dtype, cdt)
    cast_b = 0 if b is None else _cast_mode(b.dtype, cdt)
    if value is None:
        value = 0
    block = _block(out)
    grid = (triton.cdiv(n, block),)
    same = a.stride() == out.stride() and (b is None or b.stride() == out.stride())
    if same and _is_dense(out):
        _flat_kernel[grid](a, a if b is None else b, out, n, value, CDT=k_cdt, CAST_A=cast_a,
                           CAST_B=cast_b, SCALAR=b is None, BLOCK=block, num_warps=8)
        return
    ops = [a, out] if b is None else [a, b, out]
    sizes, strides = _merge_dims(out.shape, [t.stride() for t in ops])
    if len(sizes) > _MAX_RANK:
        tmp = torch.empty(out.shape, dtype=out.dtype, device=out.device)
        _launch(a.contiguous(), None if b is None else b.contiguous(), tmp, value, cdt)
        out.copy_(tmp)
        return
    # innermost first; the outermost stride goes to the last slot of each operand
    nd = len(sizes)
    inner = list(reversed(sizes))[:-1] if nd else []
    zs = inner + [1] * (_MAX_RANK - 1 - len(inner))
    def pack(st):
        rev = list(reversed(st))
        if not rev:
            return [0] * _MAX_RANK
        return rev[:-1] + [0] * (_MAX_RANK - nd) + [rev[-1]]
    st_a, st_o = pack(strides[0]), pack(strides[-1])
    st_b = [0] * _MAX_RANK if b is None else pack(strides[1])
    _strided_kernel[grid](a, a if b is None else b, out, n, value, *zs, *st_a, *st_b, *st_o,
                          NDIM=max(nd, 1), CDT=k_cdt, CAST_A=cast_a, CAST_B=cast_b,
                          SCALAR=b is None, BLOCK=block, num_warps=4)


def _prepare_out(out, shape):
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


def _tensor(self, other, out=None):
    shape = torch.broadcast_shapes(self.shape, other.shape)
    cdt = torch.result_type(self, other)
    a, b = self.expand(shape), other.expand(shape)
    if out is None:
        if a.stride() == b.stride() and _is_dense(a):
            out = torch.empty_strided(shape, a.stride(), dtype=torch.bool, device=self.device)
        else:
            out = torch.empty(shape, dtype=torch.bool, device=self.device)
    else:
        out = _prepare_out(out, shape)
    _launch(a, b, out, None, cdt)
    return out


def _scalar(self, other, out=None):
    cdt = torch.result_type(self, other)
    value = _host_scalar(other, cdt)
    if out is None:
        if _is_dense(self):
            out = torch.empty_strided(self.shape, self.stride(), dtype=torch.bool,
                                      device=self.device)
        else:
            out = torch.empty(self.shape, dtype=torch.bool, device=self.device)
    else:
        out = _prepare_out(out, self.shape)
    _launch(self, None, out, value, cdt)
    return out


def le_Tensor(self, other):
    return _tensor(self, other)


def le_Scalar(self, other):
    return _scalar(self, other)


def le_Tensor_out(self, other, *, out):
    return _tensor(self, other, out)


def le_Scalar_out(self, other, *, out):
    return _scalar(self, other, out)
