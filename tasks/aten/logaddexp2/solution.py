"""Shipped solution for aten::logaddexp2: one elementwise kernel, flat or strided.

logaddexp2(a, b) = log2(2**a + 2**b), computed without overflow as
max(a, b) + log2(1 + 2**-|a - b|), with log2(1 + t) evaluated as log2(u) * t / (u - 1), u = 1 + t
(exact to a few ulps even when t is far below one ulp of 1). Equal infinities give themselves.
Inputs are loaded in their own dtype, computed in float32 (float64 for float64 inputs) and rounded
once on the store; a bfloat16 result is rounded to nearest even with integer ops.

When every operand is dense with the same strides (contiguous, or all transposed alike) one flat
kernel walks the storage linearly. Otherwise operands are broadcast as stride-0 views (no copy),
dimensions that are contiguous with their neighbour in every operand (output included) are merged,
and a strided kernel turns each flat index into per-operand offsets, writing through the output's
own strides (so a non-contiguous `out` is written in place).
"""

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
def _finish(y, out_ptr):
    if out_ptr.dtype.element_ty == tl.bfloat16:
        y = _round_bf16(y)
    return y.to(out_ptr.dtype.element_ty)


@triton.jit
def _logaddexp2(x, v, CDT: tl.constexpr):
    a = x.to(CDT)
    b = v.to(CDT)
    m = tl.maximum(a, b)
    t = tl.exp2(-tl.abs(a - b))  # NaN if either is NaN or both are the same infinity
    u = 1.0 + t
    small = u == 1.0
    l2 = tl.where(small, t * 1.4426950408889634, tl.log2(u) * (t / tl.where(small, 1.0, u - 1.0)))
    y = m + l2
    return tl.where((a == b) & (tl.abs(a) == float("inf")), a, y)


@triton.jit
def _flat_kernel(a_ptr, b_ptr, out_ptr, n, CDT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(a_ptr + offs, mask=mask)
    v = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _finish(_logaddexp2(x, v, CDT), out_ptr), mask=mask)


@triton.jit
def _strided_kernel(a_ptr, b_ptr, out_ptr, n,
                    z0, z1, z2, z3, z4, a0, a1, a2, a3, a4, a5, b0, b1, b2, b3, b4, b5,
                    o0, o1, o2, o3, o4, o5, NDIM: tl.constexpr, CDT: tl.constexpr,
                    BLOCK: tl.constexpr):
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
    x = tl.load(a_ptr + a_off, mask=mask)
    v = tl.load(b_ptr + b_off, mask=mask)
    tl.store(out_ptr + o_off, _finish(_logaddexp2(x, v, CDT), out_ptr), mask=mask)


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


def _launch(a, b, out):
    """out[...] = logaddexp2(a, b) with a, b already expanded to out's shape."""
    n = out.numel()
    if n == 0:
        return
    block = _block(out)
    grid = (triton.cdiv(n, block),)
    wide = torch.float64 in (a.dtype, b.dtype, out.dtype)
    cdt = tl.float64 if wide else tl.float32
    if a.stride() == out.stride() and b.stride() == out.stride() and _is_dense(out):
        _flat_kernel[grid](a, b, out, n, CDT=cdt, BLOCK=block, num_warps=8)
        return
    sizes, strides = _merge_dims(out.shape, [a.stride(), b.stride(), out.stride()])
    if len(sizes) > _MAX_RANK:
        tmp = torch.empty(out.shape, dtype=out.dtype, device=out.device)
        _launch(a.contiguous(), b.contiguous(), tmp)
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

    _strided_kernel[grid](a, b, out, n, *zs, *pack(strides[0]), *pack(strides[1]),
                          *pack(strides[2]), NDIM=max(nd, 1), CDT=cdt, BLOCK=block,
                          num_warps=4)


def _result_dtype(self, other):
    dt = torch.result_type(self, other)
    if not dt.is_floating_point:
        raise RuntimeError(f"logaddexp2 not implemented for '{dt}'")
    return dt


def logaddexp2(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    dt = _result_dtype(self, other)
    shape = torch.broadcast_shapes(self.shape, other.shape)
    a, b = self.expand(shape), other.expand(shape)
    if a.stride() == b.stride() and _is_dense(a):
        out = torch.empty_strided(shape, a.stride(), dtype=dt, device=self.device)
    else:
        out = torch.empty(shape, dtype=dt, device=self.device)
    _launch(a, b, out)
    return out


def logaddexp2_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    _result_dtype(self, other)
    shape = torch.broadcast_shapes(self.shape, other.shape)
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    _launch(self.expand(shape), other.expand(shape), out)
    return out
