"""Shipped solution for aten::margin_ranking_loss: one elementwise kernel and one two-stage
reduction.

loss = max(0, -target * (input1 - input2) + margin), with NaN kept (a plain float max would
drop it). The three inputs are broadcast to the loss shape as views (stride 0 where expanded)
and the dimensions are merged where every operand is contiguous across them; when every operand
ends up as one dense run the kernels index flat, otherwise through up to four (size, stride)
groups, so non-contiguous and broadcast inputs are read in place without copies.

reduction 'none' writes the loss elementwise. 'mean' and 'sum' give every program a strip of
tiles that it accumulates in a float32 vector, writes one partial sum per program, and a
one-program kernel adds the partials in a fixed order (deterministic), divides by the element
count for 'mean' and rounds once to the output dtype.
"""

import torch
import triton
import triton.language as tl

_RANK = 4


@triton.jit
def _margin_ranking(a, b, t, margin):
    v = margin - t * (a - b)
    # NaN fails v < 0 and is kept.
    return tl.where(v < 0, 0.0, v)


@triton.jit
def _index(offs, S1, S2, S3):
    i3 = offs % S3
    r = offs // S3
    i2 = r % S2
    r = r // S2
    return r // S1, r % S1, i2, i3


@triton.jit
def _load3(a_ptr, b_ptr, t_ptr, offs, mask, S1, S2, S3,
           A0, A1, A2, A3, B0, B1, B2, B3, T0, T1, T2, T3, FLAT: tl.constexpr):
    if FLAT:
        ao = offs
        bo = offs
        to = offs
    else:
        i0, i1, i2, i3 = _index(offs, S1, S2, S3)
        ao = i0 * A0 + i1 * A1 + i2 * A2 + i3 * A3
        bo = i0 * B0 + i1 * B1 + i2 * B2 + i3 * B3
        to = i0 * T0 + i1 * T1 + i2 * T2 + i3 * T3
    a = tl.load(a_ptr + ao, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + bo, mask=mask).to(tl.float32)
    t = tl.load(t_ptr + to, mask=mask).to(tl.float32)
    return a, b, t


@triton.jit
def _mrl_none_kernel(a_ptr, b_ptr, t_ptr, o_ptr, n, margin, S1, S2, S3,
                     A0, A1, A2, A3, B0, B1, B2, B3, T0, T1, T2, T3,
                     FLAT: tl.constexpr, BLOCK: tl.constexpr):
    # The output is a fresh contiguous tensor: its offset is the linear index.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a, b, t = _load3(a_ptr, b_ptr, t_ptr, offs, mask, S1, S2, S3,
                     A0, A1, A2, A3, B0, B1, B2, B3, T0, T1, T2, T3, FLAT)
    tl.store(o_ptr + offs, _margin_ranking(a, b, t, margin).to(o_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def _mrl_partial_kernel(a_ptr, b_ptr, t_ptr, part_ptr, n, margin, S1, S2, S3,
                        A0, A1, A2, A3, B0, B1, B2, B3, T0, T1, T2, T3,
                        FLAT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    lane = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(pid.to(tl.int64) * BLOCK, n, step):
        offs = start + lane
        mask = offs < n
        a, b, t = _load3(a_ptr, b_ptr, t_ptr, offs, mask, S1, S2, S3,
                         A0, A1, A2, A3, B0, B1, B2, B3, T0, T1, T2, T3, FLAT)
        acc += tl.where(mask, _margin_ranking(a, b, t, margin), 0.0)
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


def margin_ranking_loss(input1: torch.Tensor, input2: torch.Tensor, target: torch.Tensor,
                        margin: float = 0.0, reduction: int = 1) -> torch.Tensor:
    shape = torch.broadcast_shapes(input1.shape, input2.shape, target.shape)
    ins = [input1.expand(shape), input2.expand(shape), target.expand(shape)]
    n = 1
    for s in shape:
        n *= s
    gpu = input1.device.type != "cpu"
    if n:
        sizes, strides = _plan(shape, ins)
        if len(sizes) > _RANK:  # rare: more than four dims that do not merge
            ins = [t.contiguous() for t in ins]
            sizes, strides = _plan(shape, ins)
        flat = len(sizes) == 0 or (len(sizes) == 1 and all(s[0] == 1 for s in strides))
        pad = _RANK - len(sizes)
        sizes = [1] * pad + sizes
        st = [v for s in strides for v in [0] * pad + s]
    if reduction == 0:
        out = torch.empty(shape, dtype=input1.dtype, device=input1.device)
        if n:
            # The CPU interpreter pays per program instance, so it gets few large blocks.
            block = 2048 if gpu else 65536
            _mrl_none_kernel[(triton.cdiv(n, block),)](*ins, out, n, float(margin), *sizes[1:],
                                                       *st, FLAT=flat, BLOCK=block,
                                                       num_warps=8)
        return out
    out = torch.empty((), dtype=input1.dtype, device=input1.device)
    block = 4096 if gpu else 65536
    nparts = max(1, min(triton.cdiv(n, block), 1024 if gpu else 16))
    parts = torch.empty(nparts, dtype=torch.float32, device=input1.device)
    if n:
        _mrl_partial_kernel[(nparts,)](*ins, parts, n, float(margin), *sizes[1:], *st,
                                       FLAT=flat, BLOCK=block, num_warps=8)
    else:
        nparts = 0
    divisor = float(n) if reduction == 1 else 1.0
    _finish_kernel[(1,)](parts, out, nparts, divisor,
                         BLOCK=max(32, triton.next_power_of_2(nparts)), num_warps=4)
    return out
