"""Shipped solution for aten::pow: one strided, broadcasting elementwise Triton kernel.

Every tensor operand is viewed at the result's shape (broadcast dimensions get stride 0, no
copy). The dimensions are ordered by the destination's strides and neighbours that every operand
walks as one are merged, so dense operands that share a layout collapse to a flat loop; the
kernel turns each flat index into per-operand offsets and writes the destination through its own
strides. Either operand may instead be a Python number, passed as a kernel argument.

Floating powers are computed in float32: integer exponents up to 15 in magnitude by repeated
squaring (as exact as x*x*x), others as exp2(y * log2|x|); the sign and the special values
(zero, inf, NaN, negative bases) follow C's pow. An exponent of 0.5 or -0.5 given as a number is
a (reciprocal) square root, as in torch. Integer powers are computed by repeated squaring in
int64 and wrap to the result type.
"""

import torch
import triton
import triton.language as tl

_MAX_DIMS = 6
_INF = tl.constexpr(float("inf"))
_NAN = tl.constexpr(float("nan"))
_TL = {
    torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
    torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8,
    torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64,
}


@triton.jit
def _round_bf16(x):
    # float32 -> nearest-even bfloat16 value, on the bits (independent of the platform's cast)
    nan = x != x
    u = tl.where(nan, 0, x.to(tl.int32, bitcast=True))
    u = (u + 0x7FFF + ((u >> 16) & 1)) & -65536
    return tl.where(nan, x, u.to(tl.float32, bitcast=True))


@triton.jit
def _pow_float(x, y, Y_KIND: tl.constexpr, F32: tl.constexpr):
    if Y_KIND != 0:
        # exponent 0.5 / -0.5 given as a number: torch computes sqrt / 1 / sqrt
        if F32:
            r = tl.sqrt_rn(x)
            if Y_KIND == 2:
                r = tl.math.div_rn(1.0, r)
        else:
            r = tl.sqrt(x)
            if Y_KIND == 2:
                r = 1.0 / r
    else:
        ax = tl.abs(x)
        ay = tl.abs(y)
        y_int = tl.floor(y) == y  # false for NaN, true for +-inf
        # small integer exponents: repeated squaring of |x|
        small = y_int & (ay <= 15.0)
        k = tl.where(small, ay, 0.0).to(tl.int32)
        p = tl.zeros_like(x) + 1.0
        base = ax
        for i in tl.static_range(4):
            p = tl.where(((k >> i) & 1) != 0, p * base, p)
            base = base * base
        if F32:
            p = tl.where(y < 0, tl.math.div_rn(1.0, p), p)
        else:
            p = tl.where(y < 0, 1.0 / p, p)
        r = tl.where(small, p, tl.exp2(y * tl.log2(ax)))
        # sign: a negative base (or -0, -inf) to an odd integer power
        half = y * 0.5
        odd = y_int & (tl.floor(half) != half)
        if F32:
            neg = x.to(tl.int32, bitcast=True) < 0
        else:
            neg = x.to(tl.int64, bitcast=True) < 0
        r = tl.where(odd & neg, -r, r)
        # a finite negative base to a non-integer power has no real value
        r = tl.where((x < 0) & (ax < _INF) & (y == y) & (~y_int), _NAN, r)
        one = (y == 0) | (x == 1) | ((ax == 1) & (ay == _INF))
        r = tl.where(one, 1.0, r)
    return r


@triton.jit
def _pow_int(x, y, BLOCK: tl.constexpr):
    # repeated squaring in int64; the caller's cast to the result type wraps like C integers
    x = x.to(tl.int64)
    y = y.to(tl.int64)
    rem = tl.where(y > 0, y, 0)
    p = tl.full([BLOCK], 1, tl.int64)
    base = x
    more = tl.max(rem, axis=0) > 0
    while more:
        p = tl.where((rem & 1) != 0, p * base, p)
        base = base * base
        rem = rem >> 1
        more = tl.max(rem, axis=0) > 0
    # negative exponents: only 1 and -1 have integer reciprocals; everything else gives 0
    neg_pow = tl.where(x == 1, 1, tl.where(x == -1, tl.where((y & 1) != 0, -1, 1), 0))
    return tl.where(y < 0, neg_pow, p)


@triton.jit
def _pow_kernel(a_ptr, b_ptr, o_ptr, n, a_value, b_value,
                S0, S1, S2, S3, S4,
                A0, A1, A2, A3, A4, AL,
                B0, B1, B2, B3, B4, BL,
                O0, O1, O2, O3, O4, OL,
                NDIM: tl.constexpr, FLAT: tl.constexpr, A_SCALAR: tl.constexpr,
                B_SCALAR: tl.constexpr, Y_KIND: tl.constexpr, CT: tl.constexpr,
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
    if A_SCALAR:
        x = tl.full([BLOCK], a_value, CT)
    else:
        x = tl.load(a_ptr + a_off, mask=mask).to(CT)
    if B_SCALAR:
        y = tl.full([BLOCK], b_value, CT)
    else:
        y = tl.load(b_ptr + b_off, mask=mask, other=0).to(CT)
    if CT.is_floating():
        res = _pow_float(x, y, Y_KIND, CT == tl.float32)
        if o_ptr.dtype.element_ty == tl.bfloat16:
            res = _round_bf16(res)
    else:
        res = _pow_int(x, y, BLOCK)
    tl.store(o_ptr + o_off, res.to(o_ptr.dtype.element_ty), mask=mask)


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


def _launch(dst: torch.Tensor, base, exponent, rt: torch.dtype) -> None:
    """dst = base ** exponent; each of base and exponent is a tensor (broadcast to dst's shape)
    or a Python number; `rt` is the dtype torch computes in."""
    n = dst.numel()
    if n == 0:
        return
    shape = dst.shape
    a_scalar = not isinstance(base, torch.Tensor)
    b_scalar = not isinstance(exponent, torch.Tensor)
    a = dst if a_scalar else base.expand(shape)
    b = dst if b_scalar else exponent.expand(shape)
    geo = _geometry(dst, [a, b])
    target = dst
    if geo is None:  # more merged dimensions than the kernel takes: go through contiguous copies
        target = torch.empty(tuple(shape), dtype=dst.dtype, device=dst.device)
        a, b = a.contiguous(), b.contiguous()
        geo = _geometry(target, [a, b])
    ndim, flat, sizes, (o_st, a_st, b_st), idx64 = geo
    if rt in (torch.float16, torch.bfloat16, torch.float32):
        ct = tl.float32
    else:
        ct = _TL[rt]
    cast = float if ct.is_floating() else int
    a_value = cast(base) if a_scalar else 0
    b_value = cast(exponent) if b_scalar else 0
    y_kind = 0
    if b_scalar and ct.is_floating() and b_value in (0.5, -0.5):
        y_kind = 1 if b_value > 0 else 2
    block = _block(dst)
    _pow_kernel[(triton.cdiv(n, block),)](
        a, b, target, n, a_value, b_value, *sizes, *a_st, *b_st, *o_st,
        NDIM=ndim, FLAT=flat, A_SCALAR=a_scalar, B_SCALAR=b_scalar, Y_KIND=y_kind, CT=ct,
        IDX64=idx64, BLOCK=block)
    if target is not dst:
        dst.copy_(target)


def pow_Tensor_Tensor(self: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
    shape = torch.broadcast_shapes(self.shape, exponent.shape)
    rt = torch.result_type(self, exponent)
    out = _new_result(shape, rt, self)
    _launch(out, self, exponent, rt)
    return out


def pow_Tensor_Scalar(self: torch.Tensor, exponent) -> torch.Tensor:
    rt = torch.result_type(self, exponent)
    out = _new_result(self.shape, rt, self)
    _launch(out, self, exponent, rt)
    return out


def pow_Scalar(self, exponent: torch.Tensor) -> torch.Tensor:
    rt = torch.result_type(self, exponent)
    out = _new_result(exponent.shape, rt, exponent)
    _launch(out, self, exponent, rt)
    return out


def pow_Tensor_Tensor_out(self: torch.Tensor, exponent: torch.Tensor, *,
                          out: torch.Tensor) -> torch.Tensor:
    _launch(out, self, exponent, torch.result_type(self, exponent))
    return out


def pow_Scalar_out(self, exponent: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    _launch(out, self, exponent, torch.result_type(self, exponent))
    return out


def pow_Tensor_Scalar_out(self: torch.Tensor, exponent, *, out: torch.Tensor) -> torch.Tensor:
    _launch(out, self, exponent, torch.result_type(self, exponent))
    return out
