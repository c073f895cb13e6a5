"""Shipped solution for aten::heaviside: one elementwise select, flat or strided.

heaviside(x, v) = v where x == 0, 1 where x > 0, 0 elsewhere (x < 0 and NaN). No arithmetic:
the result is a select between `values` and the constants 0/1 in the common dtype, so it is exact.

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
def _heaviside(x, v):
    # 16-bit floats are selected as float32 (exact both ways) and rounded back on the store
    if v.dtype.is_fp16() or v.dtype.is_bf16():
        v = v.to(tl.float32)
    pos = (x > 0).to(v.dtype)
    return tl.where(x == 0, v, pos)


@triton.jit
def _flat_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(a_ptr + offs, mask=mask)
    v = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _heaviside(x, v).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _strided_kernel(a_ptr, b_ptr, out_ptr, n,
                    z0, z1, z2, z3, z4, a0, a1, a2, a3, a4, a5, b0, b1, b2, b3, b4, b5,
                    o0, o1, o2, o3, o4, o5, NDIM: tl.constexpr, BLOCK: tl.constexpr):
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
    tl.store(out_ptr + o_off, _heaviside(x, v).to(out_ptr.dtype.element_ty), mask=mask)


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
    """out[...] = heaviside(a, b) with a, b already expanded to out's shape."""
    n = out.numel()
    if n == 0:
        return
    block = _block(out)
    grid = (triton.cdiv(n, block),)
    if a.stride() == out.stride() and b.stride() == out.stride() and _is_dense(out):
        _flat_kernel[grid](a, b, out, n, BLOCK=block, num_warps=8)
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
                          *pack(strides[2]), NDIM=max(nd, 1), BLOCK=block, num_warps=4)


def _check(self, values, out=None):
    if self.dtype != values.dtype or (out is not None and out.dtype != self.dtype):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if self.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")


def heaviside(self: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    _check(self, values)
    shape = torch.broadcast_shapes(self.shape, values.shape)
    a, b = self.expand(shape), values.expand(shape)
    if a.stride() == b.stride() and _is_dense(a):
        out = torch.empty_strided(shape, a.stride(), dtype=self.dtype, device=self.device)
    else:
        out = torch.empty(shape, dtype=self.dtype, device=self.device)
    _launch(a, b, out)
    return out


def heaviside_out(self: torch.Tensor, values: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    _check(self, values, out)
    shape = torch.broadcast_shapes(self.shape, values.shape)
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    _launch(self.expand(shape), values.expand(shape), out)
    return out
