"""Shipped solution for aten::binary_cross_entropy_with_logits: one elementwise kernel and one
two-stage reduction.

The loss is evaluated in a form without cancellation: with L = log(1 + exp(-|x|)) and
lw = 1 + (pos_weight - 1) * target,
    loss = lw * L + (1 - target) * x        for x >= 0
    loss = lw * L - pos_weight * target * x for x < 0
(both equal (1 - t) * x + lw * softplus(-x)); every term is non-negative for targets in [0, 1],
so large logits cost no accuracy. log1p on [0, 1] is the atanh series 2 * atanh(z / (2 + z)),
which needs no library call and is accurate to two ulp in float32.

Inputs (self, target and the optional weight and pos_weight, broadcast as views) and the output
are indexed flat when all are one dense run, otherwise through up to four merged (size, stride)
groups, so non-contiguous inputs are read in place. 'mean' and 'sum' accumulate float32 partial
sums per program over a strip of tiles; a one-program kernel adds them in a fixed order.
"""

import torch
import triton
import triton.language as tl

_RANK = 4


@triton.jit
def _log1p01(z):
    # log1p(z) for z in [0, 1]: 2 * atanh(s), s = z / (2 + z) <= 1/3, as an odd series in s.
    s = z / (2.0 + z)
    s2 = s * s
    p = s2 * (1.0 / 13.0) + 1.0 / 11.0
    p = p * s2 + 1.0 / 9.0
    p = p * s2 + 1.0 / 7.0
    p = p * s2 + 1.0 / 5.0
    p = p * s2 + 1.0 / 3.0
    p = p * s2 + 1.0
    return 2.0 * s * p


@triton.jit
def _bce(x, t, w, pw, HAS_W: tl.constexpr, HAS_PW: tl.constexpr):
    soft = _log1p01(tl.exp(-tl.abs(x)))
    if HAS_PW:
        lw = 1.0 + (pw - 1.0) * t
        neg = -(pw * t) * x
    else:
        lw = 1.0
        neg = -t * x
    loss = lw * soft + tl.where(x >= 0, (1.0 - t) * x, neg)
    if HAS_W:
        loss = loss * w
    return loss


@triton.jit
def _index(offs, S1, S2, S3):
    i3 = offs % S3
    r = offs // S3
    i2 = r % S2
    r = r // S2
    return r // S1, r % S1, i2, i3


@triton.jit
def _load_all(x_ptr, t_ptr, w_ptr, pw_ptr, offs, mask, S1, S2, S3,
              X0, X1, X2, X3, T0, T1, T2, T3, W0, W1, W2, W3, P0, P1, P2, P3,
              HAS_W: tl.constexpr, HAS_PW: tl.constexpr, FLAT: tl.constexpr):
    if FLAT:
        xo = offs
        to = offs
        wo = offs
        po = offs
    else:
        i0, i1, i2, i3 = _index(offs, S1, S2, S3)
        xo = i0 * X0 + i1 * X1 + i2 * X2 + i3 * X3
        to = i0 * T0 + i1 * T1 + i2 * T2 + i3 * T3
        wo = i0 * W0 + i1 * W1 + i2 * W2 + i3 * W3
        po = i0 * P0 + i1 * P1 + i2 * P2 + i3 * P3
    x = tl.load(x_ptr + xo, mask=mask).to(tl.float32)
    t = tl.load(t_ptr + to, mask=mask).to(tl.float32)
    w = x
    pw = x
    if HAS_W:
        w = tl.load(w_ptr + wo, mask=mask).to(tl.float32)
    if HAS_PW:
        pw = tl.load(pw_ptr + po, mask=mask).to(tl.float32)
    return _bce(x, t, w, pw, HAS_W, HAS_PW)


@triton.jit
def _bce_none_kernel(x_ptr, t_ptr, w_ptr, pw_ptr, o_ptr, n, S1, S2, S3,
                     X0, X1, X2, X3, T0, T1, T2, T3, W0, W1, W2, W3, P0, P1, P2, P3,
                     O0, O1, O2, O3, HAS_W: tl.constexpr, HAS_PW: tl.constexpr,
                     FLAT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    loss = _load_all(x_ptr, t_ptr, w_ptr, pw_ptr, offs, mask, S1, S2, S3,
                     X0, X1, X2, X3, T0, T1, T2, T3, W0, W1, W2, W3, P0, P1, P2, P3,
                     HAS_W, HAS_PW, FLAT)
    if FLAT:
        oo = offs
    else:
        i0, i1, i2, i3 = _index(offs, S1, S2, S3)
        oo = i0 * O0 + i1 * O1 + i2 * O2 + i3 * O3
    tl.store(o_ptr + oo, loss.to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _bce_partial_kernel(x_ptr, t_ptr, w_ptr, pw_ptr, part_ptr, n, S1, S2, S3,
                        X0, X1, X2, X3, T0, T1, T2, T3, W0, W1, W2, W3, P0, P1, P2, P3,
                        HAS_W: tl.constexpr, HAS_PW: tl.constexpr,
                        FLAT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    lane = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(pid.to(tl.int64) * BLOCK, n, step):
        offs = start + lane
        mask = offs < n
        loss = _load_all(x_ptr, t_ptr, w_ptr, pw_ptr, offs, mask, S1, S2, S3,
                         X0, X1, X2, X3, T0, T1, T2, T3, W0, W1, W2, W3, P0, P1, P2, P3,
                         HAS_W, HAS_PW, FLAT)
        acc += tl.where(mask, loss, 0.0)
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish_kernel(part_ptr, out_ptr, nparts, divisor, BLOCK: tl.constexpr):
    p = tl.arange(0, BLOCK)
    v = tl.load(part_ptr + p, mask=p < nparts, other=0.0)
    # 'mean' of no elements is 0 / 0 = NaN, as in torch.
    tl.store(out_ptr, (tl.sum(v, axis=0) / divisor).to(out_ptr.dtype.element_ty))


def _plan(shape, tensors):
    """Merged (sizes, strides per tensor) over the non-trivial dims of `shape`."""
    sizes, strides = [], [[] for _ in tensors]
    for d, size in enumerate(shape):
        if size == 1:
            continue
        st = [t.stride(d) for t in tensors]
        if sizes and all(strides[k][-1] == st[k] * size for k in range(len(tensors))):
            sizes[-1] *= size
            for k in range(len(tensors)):
                strides[k][-1] = st[k]
        else:
            sizes.append(size)
            for k in range(len(tensors)):
                strides[k].append(st[k])
    return sizes, strides


def _args(sizes, strides):
    """(flat, [S1, S2, S3], strides padded to _RANK per tensor) for the kernels."""
    flat = len(sizes) == 0 or (len(sizes) == 1 and all(s[0] == 1 for s in strides))
    pad = _RANK - len(sizes)
    sizes = [1] * pad + list(sizes)
    return flat, sizes[1:], [[0] * pad + list(s) for s in strides]


def _block(device, reduce):
    # The CPU interpreter pays per program instance and loop trip, so it gets big tiles.
    if device.type == "cpu":
        return 65536
    return 4096 if reduce else 2048


def _pointers(ins, strides, has_w, has_pw):
    """Kernel pointers (x, t, w, pw) and their strides; an absent tensor gets x and zeros."""
    it = iter(zip(ins, strides))
    x, t = next(it), next(it)
    w = next(it) if has_w else (ins[0], [0] * _RANK)
    pw = next(it) if has_pw else (ins[0], [0] * _RANK)
    ptrs = [x[0], t[0], w[0], pw[0]]
    st = list(x[1]) + list(t[1]) + list(w[1]) + list(pw[1])
    return ptrs, st


def _bce_with_logits(self, target, weight, pos_weight, reduction, out):
    shape = self.shape
    ins = [self, target.expand(shape)]
    has_w, has_pw = weight is not None, pos_weight is not None
    if has_w:
        ins.append(weight.expand(shape))
    if has_pw:
        ins.append(pos_weight.expand(shape))
    n = self.numel()
    block = _block(self.device, reduction != 0)
    if reduction == 0:
        if out is None:
            out = torch.empty(shape, dtype=self.dtype, device=self.device)
        if n == 0:
            return out
        dst = out
        sizes, strides = _plan(shape, ins + [dst])
        if len(sizes) > _RANK:
            ins = [t.contiguous() for t in ins]
            if not dst.is_contiguous():
                dst = torch.empty(shape, dtype=self.dtype, device=self.device)
            sizes, strides = _plan(shape, ins + [dst])
        flat, s, st = _args(sizes, strides)
        ptrs, st_in = _pointers(ins, st[:-1], has_w, has_pw)
        _bce_none_kernel[(triton.cdiv(n, block),)](
            *ptrs, dst, n, *s, *st_in, *st[-1], HAS_W=has_w, HAS_PW=has_pw, FLAT=flat,
            BLOCK=block, num_warps=8)
        if dst is not out:
            out.copy_(dst)
        return out
    if out is None:
        out = torch.empty((), dtype=self.dtype, device=self.device)
    max_parts = 16 if self.device.type == "cpu" else 1024
    nparts = max(1, min(triton.cdiv(n, block), max_parts))
    parts = torch.empty(nparts, dtype=torch.float32, device=self.device)
    if n:
        sizes, strides = _plan(shape, ins)
        if len(sizes) > _RANK:
            ins = [t.contiguous() for t in ins]
            sizes, strides = _plan(shape, ins)
        flat, s, st = _args(sizes, strides)
        ptrs, st_in = _pointers(ins, st, has_w, has_pw)
        _bce_partial_kernel[(nparts,)](*ptrs, parts, n, *s, *st_in, HAS_W=has_w,
                                       HAS_PW=has_pw, FLAT=flat, BLOCK=block, num_warps=8)
    else:
        nparts = 0
    divisor = float(n) if reduction == 1 else 1.0
    _finish_kernel[(1,)](parts, out, nparts, divisor,
                         BLOCK=max(32, triton.next_power_of_2(nparts)), num_warps=4)
    return out


def binary_cross_entropy_with_logits(self: torch.Tensor, target: torch.Tensor,
                                     weight: torch.Tensor | None = None,
                                     pos_weight: torch.Tensor | None = None,
                                     reduction: int = 1) -> torch.Tensor:
    return _bce_with_logits(self, target, weight, pos_weight, reduction, None)


def binary_cross_entropy_with_logits_out(self: torch.Tensor, target: torch.Tensor,
                                         weight: torch.Tensor | None = None,
                                         pos_weight: torch.Tensor | None = None,
                                         reduction: int = 1, *,
                                         out: torch.Tensor) -> torch.Tensor:
    return _bce_with_logits(self, target, weight, pos_weight, reduction, out)
