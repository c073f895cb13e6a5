"""Shipped solution for aten::fmax: one strided, broadcasting elementwise Triton kernel.

Every operand is viewed at the result's shape (broadcast dimensions get stride 0, no copy). The
dimensions are ordered by the destination's strides and neighbours that every operand walks as
one are merged, so dense operands that share a layout collapse to a flat loop and the rest keep
at most six merged dimensions; the kernel turns each flat index into per-operand offsets. The
destination is written through its own strides (a new result takes the layout of a dense `self`,
like torch's empty_like). Both operands are converted to the promoted dtype's compute type
(float32 for 16-bit floats; exact) and the larger one is selected, NaN losing to any number.
"""

import torch
import triton
import triton.language as tl

_MAX_DIMS = 6
_TL = {
    torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
    torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8,
    torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64,
}


@triton.jit
def _fmax_kernel(a_ptr, b_ptr, o_ptr, n,
                S0, S1, S2, S3, S4,
                A0, A1, A2, A3, A4, AL,
                B0, B1, B2, B3, B4, BL,
                O0, O1, O2, O3, O4, OL,
                NDIM: tl.constexpr, FLAT: tl.constexpr, CT: tl.constexpr,
                IDX64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        r = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        r = pid * BLOCK + tl.arange(0, BLOCK)
    mask = r < n
    # Offsets of element r in every operand. The merged dimensions come innermost first:
    # sizes S0.. and strides X0.. of the inner NDIM-1 dimensions, XL the outermost stride.
    if FLAT:
        a_off = r
        b_off = r
        o_off = r
    else:
        rem = r
        a_off = r * 0
        b_off = r * 0
        o_off = r * 0
        if NDIM > 1:
            i = rem % S0
            rem = rem // S0
            a_off += i * A0
            b_off += i * B0
            o_off += i * O0
        if NDIM > 2:
            i = rem % S1
            rem = rem // S1
            a_off += i * A1
            b_off += i * B1
            o_off += i * O1
        if NDIM > 3:
            i = rem % S2
            rem = rem // S2
            a_off += i * A2
            b_off += i * B2
            o_off += i * O2
        if NDIM > 4:
            i = rem % S3
            rem = rem // S3
            a_off += i * A3
            b_off += i * B3
            o_off += i * O3
        if NDIM > 5:
            i = rem % S4
            rem = rem // S4
            a_off += i * A4
            b_off += i * B4
            o_off += i * O4
        a_off += rem * AL
        b_off += rem * BL
        o_off += rem * OL
    a = tl.load(a_ptr + a_off, mask=mask).to(CT)
    b = tl.load(b_ptr + b_off, mask=mask).to(CT)
    # the larger value; a NaN operand loses to the other one (NaN only when both are NaN)
    y = tl.where((a >= b) | (b != b), a, b)
    tl.store(o_ptr + o_off, y.to(o_ptr.dtype.element_ty), mask=mask)


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance: few large blocks there (no larger than the
    # tensor). On the GPU 2048 elements per program (16 per thread with 4 warps) give wide
    # loads and many CTAs.
    if t.device.type == "cpu":
        return min(65536, triton.next_power_of_2(t.numel()))
    return 2048


def _is_dense(t: torch.Tensor) -> bool:
    """Whether t covers a gap-free, non-overlapping block of storage, in any dimension order."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _new_result(shape, dtype, like: torch.Tensor) -> torch.Tensor:
    """A new result: the layout of `like` when it is dense and has the full shape, else
    contiguous."""
    if tuple(like.shape) == tuple(shape) and _is_dense(like):
        return torch.empty_strided(tuple(shape), like.stride(), dtype=dtype, device=like.device)
    return torch.empty(tuple(shape), dtype=dtype, device=like.device)


def _geometry(dst: torch.Tensor, srcs):
    """Merged dimensions of dst and the srcs (all viewed at dst's shape), ordered by dst's
    strides, innermost first.

    Returns (ndim, flat, inner sizes padded to 5, per tensor [inner strides padded to 5 +
    outermost stride], needs int64), or None when more than _MAX_DIMS dimensions remain."""
    shape = list(dst.shape)
    tensors = [dst] + list(srcs)
    strides = [list(t.stride()) for t in tensors]
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: -strides[0][d])
    sizes, merged = [], [[] for _ in tensors]
    for d in dims:
        if sizes and all(m[-1] == st[d] * shape[d] for m, st in zip(merged, strides)):
            sizes[-1] *= shape[d]
            for m, st in zip(merged, strides):
                m[-1] = st[d]
        else:
            sizes.append(shape[d])
            for m, st in zip(merged, strides):
                m.append(st[d])
    if not sizes:
        sizes, merged = [1], [[1] for _ in tensors]
    if len(sizes) > _MAX_DIMS:
        return None
    span = max(sum((s - 1) * st for s, st in zip(sizes, m)) for m in merged)
    # int32 index math is much cheaper on the GPU; the interpreter checks every int32 add and
    # multiply for overflow, so there int64 is the cheaper one.
    idx64 = dst.device.type == "cpu" or dst.numel() >= 2**31 or span >= 2**31
    ndim = len(sizes)
    flat = ndim == 1 and all(m[0] == 1 for m in merged)
    inner = sizes[::-1][:-1]
    inner += [1] * (5 - len(inner))
    strides_out = []
    for m in merged:
        rev = m[::-1]
        strides_out.append(rev[:-1] + [0] * (6 - ndim) + [rev[-1]])
    return ndim, flat, inner, strides_out, idx64


def _compute_type(dtype: torch.dtype):
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        return tl.float32
    return _TL[dtype]


def _launch(dst: torch.Tensor, a: torch.Tensor, b: torch.Tensor, ct_dtype: torch.dtype) -> None:
    """dst = fmax(a, b) elementwise; a and b broadcast to dst's shape."""
    n = dst.numel()
    if n == 0:
        return
    shape = dst.shape
    a = a.expand(shape)
    b = b.expand(shape)
    geo = _geometry(dst, [a, b])
    target = dst
    if geo is None:  # more merged dimensions than the kernel takes: go through contiguous copies
        target = torch.empty(tuple(shape), dtype=dst.dtype, device=dst.device)
        a, b = a.contiguous(), b.contiguous()
        geo = _geometry(target, [a, b])
    ndim, flat, sizes, (o_st, a_st, b_st), idx64 = geo
    block = _block(dst)
    _fmax_kernel[(triton.cdiv(n, block),)](
        a, b, target, n, *sizes, *a_st, *b_st, *o_st,
        NDIM=ndim, FLAT=flat, CT=_compute_type(ct_dtype), IDX64=idx64, BLOCK=block)
    if target is not dst:
        dst.copy_(target)


def fmax(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    shape = torch.broadcast_shapes(self.shape, other.shape)
    rt = torch.result_type(self, other)
    out = _new_result(shape, rt, self)
    _launch(out, self, other, rt)
    return out


def fmax_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    _launch(out, self, other, torch.result_type(self, other))
    return out
