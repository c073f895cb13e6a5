"""Shipped solution for aten::polygamma: one elementwise kernel, flat or strided.

polygamma(n, x) is the n-th derivative of digamma. For n >= 1 it equals
(-1)**(n+1) * n! * sum_{k>=0} 1 / (x + k)**(n+1). The kernel shifts x upwards with that recurrence
(terms 1/(x+k)**(n+1), or -1/(x+k) for digamma) until z = x + N >= Z, where Z grows with n so that
the asymptotic expansion in 1/z converges, then adds the expansion at z:

    digamma(z)      = ln z - 1/(2z) - sum_k B_2k / (2k z**2k)
    polygamma(n, z) = (-1)**(n+1) (n-1)! / z**n * (1 + n/(2z) + sum_k B_2k C(2k+n-1, 2k) / z**2k)

with five Bernoulli terms. Each shifted argument is x + k formed directly (one rounding), all terms
of the sum have one sign for x > 0, so the float32 result is accurate to a few ulps. The number of
shift steps is the largest one needed in the block (at most Z for positive inputs; negative inputs
need more). n is a compile-time constant; orders above 12 are computed in float64, whose range
holds n! and the powers. Special points: x = 0 gives an infinity with the sign of the limit from
the right (digamma: -inf at +0, +inf at -0), non-positive integers and -inf follow PyTorch, NaN
stays NaN.
"""

import math

import torch
import triton
import triton.language as tl

_MAX_RANK = 6
# B_2k for k = 1..5
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66]


@triton.jit
def _round_bf16(x):
    # float32 -> float32 holding the nearest bfloat16 (ties to even); NaN stays NaN.
    bits = x.to(tl.uint32, bitcast=True)
    r = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return tl.where(x != x, x, r.to(tl.float32, bitcast=True))


@triton.jit
def _finish(y, out_ptr):
    if out_ptr.dtype.element_ty == tl.bfloat16:
        y = _round_bf16(y.to(tl.float32))
    return y.to(out_ptr.dtype.element_ty)


@triton.jit
def _polygamma(v, mask, d1, d2, d3, d4, d5, N: tl.constexpr, Z: tl.constexpr,
               CDT: tl.constexpr):
    x = v.to(CDT)
    finite = (x == x) & (tl.abs(x) < float("inf"))
    # shift steps needed by this block: ceil(Z - x) for finite x < Z
    need = tl.where(mask & finite & (x < Z), tl.ceil(Z - x), 0.0)
    steps = tl.minimum(tl.max(need, axis=0), 16777216.0).to(tl.int32)
    acc = tl.zeros_like(x)
    cnt = tl.zeros_like(x)
    for i in range(0, steps):
        zk = x + i
        take = zk < Z
        r = 1.0 / zk
        if N == 0:
            t = r
        else:
            t = r
            for _ in tl.static_range(N):
                t = t * r
        acc += tl.where(take, t, 0.0)
        cnt += tl.where(take, 1.0, 0.0)
    z = x + cnt
    r = 1.0 / z
    r2 = r * r
    if N == 0:
        # ln z - 1/(2z) - r^2/12 + r^4/120 - r^6/252 + r^8/240 - r^10/132
        s = r2 * (d1 + r2 * (d2 + r2 * (d3 + r2 * (d4 + r2 * d5))))
        y = tl.log(z) - 0.5 * r - s - acc
        y = tl.where(x == 0, tl.where((1.0 / x) > 0, -float("inf"), float("inf")), y)
        bad = ((x < 0) & (x == tl.floor(x))) | (x == -float("inf"))
        y = tl.where(bad, float("nan"), y)
    else:
        # (n-1)! * (n * acc + r^n (1 + n r / 2 + sum_k d_k r^2k)), sign (-1)^(n+1)
        fact = 1.0
        for j in tl.static_range(1, N):
            fact = fact * j
        rn = r
        for _ in tl.static_range(N - 1):
            rn = rn * r
        tail = rn * (1.0 + (0.5 * N) * r + r2 * (d1 + r2 * (d2 + r2 * (d3 + r2 * (d4 + r2 * d5)))))
        y = fact * (N * acc + tail)
        if N % 2 == 0:
            y = -y
        pole = ((x <= 0) & (x == tl.floor(x))) | (x == -float("inf"))
        inf_val = float("inf") if N % 2 == 1 else -float("inf")
        y = tl.where(pole, inf_val, y)
        # PyTorch: trigamma(-inf) is NaN, and polygamma(n >= 2, +inf) is NaN
        if N == 1:
            y = tl.where(x == -float("inf"), float("nan"), y)
        else:
            y = tl.where(x == float("inf"), float("nan"), y)
    return tl.where(x != x, x, y)


@triton.jit
def _flat_kernel(x_ptr, out_ptr, n, d1, d2, d3, d4, d5, N: tl.constexpr, Z: tl.constexpr,
                 CDT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = _polygamma(v, mask, d1, d2, d3, d4, d5, N, Z, CDT)
    tl.store(out_ptr + offs, _finish(y, out_ptr), mask=mask)


@triton.jit
def _strided_kernel(x_ptr, out_ptr, n, z0, z1, z2, z3, z4, a0, a1, a2, a3, a4, a5,
                    o0, o1, o2, o3, o4, o5, d1, d2, d3, d4, d5, NDIM: tl.constexpr,
                    N: tl.constexpr, Z: tl.constexpr, CDT: tl.constexpr, BLOCK: tl.constexpr):
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
    v = tl.load(x_ptr + a_off, mask=mask, other=1.0)
    y = _polygamma(v, mask, d1, d2, d3, d4, d5, N, Z, CDT)
    tl.store(out_ptr + o_off, _finish(y, out_ptr), mask=mask)


def _coefficients(n: int):
    """Coefficients d_1..d_5 of the asymptotic series (see the module docstring)."""
    if n == 0:
        return [b / (2 * k) for k, b in enumerate(_BERNOULLI, 1)]
    return [b * math.comb(2 * k + n - 1, 2 * k) for k, b in enumerate(_BERNOULLI, 1)]


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU 1024
    # elements per program keeps the per-block shift count close to each element's own.
    return 65536 if t.device.type == "cpu" else 1024


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


def _launch(order, x, out):
    """out[...] = polygamma(order, x), x and out of the same shape."""
    count = out.numel()
    if count == 0:
        return
    wide = order > 12 or torch.float64 in (x.dtype, out.dtype)
    cdt = tl.float64 if wide else tl.float32
    # shift target: the asymptotic series needs z well above n / (2 pi)
    z = (2 * order + 16) if wide else (order + 6)
    d = _coefficients(order)
    block = _block(out)
    grid = (triton.cdiv(count, block),)
    meta = dict(N=order, Z=float(z), CDT=cdt, BLOCK=block)
    if x.stride() == out.stride() and _is_dense(out):
        _flat_kernel[grid](x, out, count, *d, num_warps=4, **meta)
        return
    sizes, strides = _merge_dims(out.shape, [x.stride(), out.stride()])
    if len(sizes) > _MAX_RANK:
        tmp = torch.empty(out.shape, dtype=out.dtype, device=out.device)
        _launch(order, x.contiguous(), tmp)
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

    _strided_kernel[grid](x, out, count, *zs, *pack(strides[0]), *pack(strides[1]), *d,
                          NDIM=max(nd, 1), num_warps=4, **meta)


def _result_dtype(n, self):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if self.dtype.is_floating_point:
        return self.dtype
    if self.dtype.is_complex:
        raise RuntimeError("polygamma not implemented for complex tensors")
    return torch.get_default_dtype()


def polygamma(n: int, self: torch.Tensor) -> torch.Tensor:
    dt = _result_dtype(n, self)
    x = self
    if dt != self.dtype:  # integer input: read it as it is, the kernel converts on load
        out = torch.empty(self.shape, dtype=dt, device=self.device)
    elif _is_dense(self):
        out = torch.empty_strided(self.shape, self.stride(), dtype=dt, device=self.device)
    else:
        out = torch.empty(self.shape, dtype=dt, device=self.device)
    _launch(int(n), x, out)
    return out


def polygamma_out(n: int, self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    _result_dtype(n, self)
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    _launch(int(n), self, out)
    return out
