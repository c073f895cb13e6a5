"""Shipped solution for aten::mish: one elementwise kernel, flat or strided.

mish(x) = x * tanh(softplus(x)) = x * tanh(log(1 + e**x)). With e = e**x and n = e * (e + 2),
tanh(log(1 + e)) = n / (n + 2) exactly, which has no cancellation for negative x (where it is
about e) and needs one exp and one division. Above x = 20 the factor is 1 in float32 and e**x
could overflow, so the result is x. x = -inf gives -inf * 0 = NaN, as PyTorch's formula does.
Inputs are loaded in their own dtype, computed in float32 (float64 for float64) and rounded once
on the store; a bfloat16 result is rounded to nearest even with integer ops.

A dense input (contiguous, transposed, or at an offset) written to an output with the same
strides is processed as one linear run of storage. Otherwise dimensions that are contiguous with
their neighbour in both input and output are merged and a strided kernel addresses both through
their strides (so a non-contiguous `out` is written in place).
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
def _mish(v, CDT: tl.constexpr):
    x = v.to(CDT)
    e = tl.exp(tl.minimum(x, 20.0))
    n = e * (e + 2.0)
    y = x * (n / (n + 2.0))
    return tl.where(x > 20.0, x, y)


@triton.jit
def _flat_kernel(x_ptr, out_ptr, n, CDT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _finish(_mish(v, CDT), out_ptr), mask=mask)


@triton.jit
def _strided_kernel(x_ptr, out_ptr, n, z0, z1, z2, z3, z4, a0, a1, a2, a3, a4, a5,
                    o0, o1, o2, o3, o4, o5, NDIM: tl.constexpr, CDT: tl.constexpr,
                    BLOCK: tl.constexpr):
    # Dims are given innermost first: sizes z0.. and strides of input (a) and output (o); the
    # outermost dim (index NDIM - 1) needs no size. Only the NDIM dims in use cost a division.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    a_off = tl.zeros_like(offs)
    o_off = tl.zeros_like(offs)
    if NDIM > 1:
        c = r % z0
        r = r // z0
        a_off += c * a0
        o_off += c * o0
    if NDIM > 2:
        c = r % z1
        r = r // z1
        a_off += c * a1
        o_off += c * o1
    if NDIM > 3:
        c = r % z2
        r = r // z2
        a_off += c * a2
        o_off += c * o2
    if NDIM > 4:
        c = r % z3
        r = r // z3
        a_off += c * a3
        o_off += c * o3
    if NDIM > 5:
        c = r % z4
        r = r // z4
        a_off += c * a4
        o_off += c * o4
    a_off += r * a5
    o_off += r * o5
    v = tl.load(x_ptr + a_off, mask=mask)
    tl.store(out_ptr + o_off, _finish(_mish(v, CDT), out_ptr), mask=mask)


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


def _launch(x, out):
    """out[...] = mish(x), x and out of the same shape."""
    n = out.numel()
    if n == 0:
        return
    block = _block(out)
    grid = (triton.cdiv(n, block),)
    cdt = tl.float64 if torch.float64 in (x.dtype, out.dtype) else tl.float32
    if x.stride() == out.stride() and _is_dense(out):
        _flat_kernel[grid](x, out, n, CDT=cdt, BLOCK=block, num_warps=8)
        return
    sizes, strides = _merge_dims(out.shape, [x.stride(), out.stride()])
    if len(sizes) > _MAX_RANK:
        tmp = torch.empty(out.shape, dtype=out.dtype, device=out.device)
        _launch(x.contiguous(), tmp)
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

    _strided_kernel[grid](x, out, n, *zs, *pack(strides[0]), *pack(strides[1]),
                          NDIM=max(nd, 1), CDT=cdt, BLOCK=block, num_warps=4)


def _check(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"mish not implemented for '{self.dtype}'")


def mish(self: torch.Tensor) -> torch.Tensor:
    _check(self)
    if _is_dense(self):
        out = torch.empty_strided(self.shape, self.stride(), dtype=self.dtype, device=self.device)
    else:
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    _launch(self, out)
    return out


def mish_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    _check(self)
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    _launch(self, out)
    return out
