"""Shipped solution for aten::soft_margin_loss: one elementwise kernel and one two-stage
reduction.

The loss log(1 + exp(-t * x)) is softplus(z) with z = -t * x, evaluated as
max(z, 0) + log1p(exp(-|z|)), which never overflows; log1p on [0, 1] is the atanh series
2 * atanh(u / (2 + u)), which needs no library call and is accurate to two ulp in float32.

Inputs are broadcast to the loss shape as views (stride 0 where expanded) and the dimensions are
merged where every operand is contiguous across them; when every operand ends up as one dense run
the kernels index flat, otherwise they index through up to four (size, stride) groups, so
transposed, strided and offset inputs are read in place without copies.

reduction 'none' writes the loss elementwise (into `out` through its strides for
soft_margin_loss.out).
'mean' and 'sum' give every program a strip of tiles that it accumulates in a float32 vector,
writes one partial sum per program, and a one-program kernel adds the partials in a fixed order
(deterministic), divides by the element count for 'mean' and rounds once to the output dtype.
"""

import torch
import triton
import triton.language as tl

_RANK = 4


@triton.jit
def _log1p01(u):
    # log1p(u) for u in [0, 1]: 2 * atanh(s), s = u / (2 + u) <= 1/3, as an odd series in s.
    s = u / (2.0 + u)
    s2 = s * s
    p = s2 * (1.0 / 13.0) + 1.0 / 11.0
    p = p * s2 + 1.0 / 9.0
    p = p * s2 + 1.0 / 7.0
    p = p * s2 + 1.0 / 5.0
    p = p * s2 + 1.0 / 3.0
    p = p * s2 + 1.0
    return 2.0 * s * p


@triton.jit
def _soft_margin(x, t):
    z = -(t * x)
    # where() rather than maximum(): a NaN z must stay NaN (it does through the log1p term).
    return tl.where(z > 0, z, 0.0) + _log1p01(tl.exp(-tl.abs(z)))


@triton.jit
def _index(offs, S1, S2, S3):
    i3 = offs % S3
    r = offs // S3
    i2 = r % S2
    r = r // S2
    return r // S1, r % S1, i2, i3


@triton.jit
def _soft_margin_none_kernel(x_ptr, t_ptr, o_ptr, n, S1, S2, S3,
                             X0, X1, X2, X3, T0, T1, T2, T3, O0, O1, O2, O3,
                             FLAT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if FLAT:
        xo = offs
        to = offs
        oo = offs
    else:
        i0, i1, i2, i3 = _index(offs, S1, S2, S3)
        xo = i0 * X0 + i1 * X1 + i2 * X2 + i3 * X3
        to = i0 * T0 + i1 * T1 + i2 * T2 + i3 * T3
        oo = i0 * O0 + i1 * O1 + i2 * O2 + i3 * O3
    x = tl.load(x_ptr + xo, mask=mask).to(tl.float32)
    t = tl.load(t_ptr + to, mask=mask).to(tl.float32)
    tl.store(o_ptr + oo, _soft_margin(x, t).to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _soft_margin_partial_kernel(x_ptr, t_ptr, part_ptr, n, S1, S2, S3,
                                X0, X1, X2, X3, T0, T1, T2, T3,
                                FLAT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    acc = tl.zeros([BLOCK], tl.float32)
    lane = tl.arange(0, BLOCK)
    for start in range(pid.to(tl.int64) * BLOCK, n, step):
        offs = start + lane
        mask = offs < n
        if FLAT:
            xo = offs
            to = offs
        else:
            i0, i1, i2, i3 = _index(offs, S1, S2, S3)
            xo = i0 * X0 + i1 * X1 + i2 * X2 + i3 * X3
            to = i0 * T0 + i1 * T1 + i2 * T2 + i3 * T3
        x = tl.load(x_ptr + xo, mask=mask).to(tl.float32)
        t = tl.load(t_ptr + to, mask=mask).to(tl.float32)
        acc += tl.where(mask, _soft_margin(x, t), 0.0)
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


def _soft_margin_loss(self, target, reduction, out):
    shape = torch.broadcast_shapes(self.shape, target.shape)
    x, t = self.expand(shape), target.expand(shape)
    n = 1
    for s in shape:
        n *= s
    if reduction == 0:
        if out is None:
            out = torch.empty(shape, dtype=self.dtype, device=self.device)
        if n == 0:
            return out
        dst = out
        sizes, strides = _plan(shape, [x, t, dst])
        if len(sizes) > _RANK:  # rare: more than four dims that do not merge
            x, t = x.contiguous(), t.contiguous()
            if not dst.is_contiguous():
                dst = torch.empty(shape, dtype=self.dtype, device=self.device)
            sizes, strides = _plan(shape, [x, t, dst])
        flat, s, (xs, ts, os_) = _args(sizes, strides)
        block = _block(self.device, False)
        _soft_margin_none_kernel[(triton.cdiv(n, block),)](
            x, t, dst, n, *s, *xs, *ts, *os_, FLAT=flat, BLOCK=block, num_warps=8)
        if dst is not out:
            out.copy_(dst)
        return out
    if out is None:
        out = torch.empty((), dtype=self.dtype, device=self.device)
    block = _block(self.device, True)
    max_parts = 16 if self.device.type == "cpu" else 1024
    nparts = max(1, min(triton.cdiv(n, block), max_parts))
    parts = torch.empty(nparts, dtype=torch.float32, device=self.device)
    if n:
        sizes, strides = _plan(shape, [x, t])
        if len(sizes) > _RANK:
            x, t = x.contiguous(), t.contiguous()
            sizes, strides = _plan(shape, [x, t])
        flat, s, (xs, ts) = _args(sizes, strides)
        _soft_margin_partial_kernel[(nparts,)](x, t, parts, n, *s, *xs, *ts,
                                               FLAT=flat, BLOCK=block, num_warps=8)
    else:
        nparts = 0
    divisor = float(n) if reduction == 1 else 1.0
    _finish_kernel[(1,)](parts, out, nparts, divisor,
                         BLOCK=max(32, triton.next_power_of_2(nparts)), num_warps=4)
    return out


def soft_margin_loss(self: torch.Tensor, target: torch.Tensor,
                     reduction: int = 1) -> torch.Tensor:
    return _soft_margin_loss(self, target, reduction, None)


def soft_margin_loss_out(self: torch.Tensor, target: torch.Tensor, reduction: int = 1, *,
                         out: torch.Tensor) -> torch.Tensor:
    return _soft_margin_loss(self, target, reduction, out)
