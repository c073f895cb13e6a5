"""Shipped solution for aten::amin: a strided min-reduction kernel, split over K when the outputs
alone cannot fill the GPU.

The problem is described as out[o, i] = min over (k1, k2) of x[o, i, k1, k2]: the kept dims and
the reduced dims are each sorted by input stride and merged where they walk memory as one, into
at most two groups apiece (O, I kept; K1, K2 reduced; K2 is the inner, tiled one). The input is
read through its own strides (no copy for transposed, strided or offset inputs) and the output
is written through its own strides (so a non-contiguous `out=` needs no copy either); only a
layout needing more groups is permuted and copied first.

A program keeps a [BJ outputs, BK terms] tile of running minima and reduces it once at the end.
The tile is long along K2 when K2 is the contiguous direction and wide along the outputs when
they are, so loads stay coalesced. Minima are exact, so 16-bit values are compared as float32
and stored back unchanged. NaN propagates through the elementwise running minimum (a
NaN-propagating minimum), and the final cross-lane reduction checks for NaN explicitly.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _amin_kernel(x_ptr, out_ptr, part_ptr, J, I, K1, K2, xo, xi, xk1, xk2, oo, oi,
                 k1_per, k2_per, S2, BIG: tl.constexpr, BJ: tl.constexpr, BK: tl.constexpr,
                 IS_FLOAT: tl.constexpr, HAS_O: tl.constexpr, SPLIT: tl.constexpr):
    s = tl.program_id(1)
    k1_lo = (s // S2) * k1_per
    k1_hi = tl.minimum(K1, k1_lo + k1_per)
    k2_lo = (s % S2) * k2_per
    k2_hi = tl.minimum(K2, k2_lo + k2_per)
    jj = tl.program_id(0).to(tl.int64) * BJ + tl.arange(0, BJ)
    j_ok = jj < J
    if HAS_O:
        x_off = (jj // I) * xo + (jj % I) * xi
        o_off = (jj // I) * oo + (jj % I) * oi
    else:
        x_off = jj * xi
        o_off = jj * oi
    kk0 = tl.arange(0, BK)
    offs = x_off[:, None] + kk0[None, :].to(tl.int64) * xk2
    if IS_FLOAT:
        acc = tl.full([BJ, BK], float("inf"), tl.float32)
    else:
        acc = tl.full([BJ, BK], BIG, out_ptr.dtype.element_ty)
    row = k1_lo.to(tl.int64) * xk1 + k2_lo.to(tl.int64) * xk2
    step = BK * xk2
    for _ in range(k1_lo, k1_hi):
        pos = row
        for k2 in range(k2_lo, k2_hi, BK):
            m = j_ok[:, None] & (kk0 < k2_hi - k2)[None, :]
            if IS_FLOAT:
                v = tl.load(x_ptr + (offs + pos), mask=m, other=float("inf")).to(tl.float32)
                acc = tl.minimum(acc, v, propagate_nan=tl.PropagateNan.ALL)
            else:
                acc = tl.minimum(acc, tl.load(x_ptr + (offs + pos), mask=m, other=BIG))
            pos += step
        row += xk1
    res = tl.min(acc, axis=1)
    if IS_FLOAT:
        has_nan = tl.max((acc != acc).to(tl.int32), axis=1) > 0
        res = tl.where(has_nan, float("nan"), res)
    if SPLIT:
        tl.store(part_ptr + s.to(tl.int64) * J + jj, res.to(part_ptr.dtype.element_ty), mask=j_ok)
    else:
        tl.store(out_ptr + o_off, res.to(out_ptr.dtype.element_ty), mask=j_ok)


@triton.jit
def _amin_parts_kernel(part_ptr, out_ptr, S, J, I, oo, oi, BIG: tl.constexpr,
                       BJ: tl.constexpr, BS: tl.constexpr, IS_FLOAT: tl.constexpr):
    jj = tl.program_id(0).to(tl.int64) * BJ + tl.arange(0, BJ)
    j_ok = jj < J
    if IS_FLOAT:
        acc = tl.full([BJ, BS], float("inf"), tl.float32)
    else:
        acc = tl.full([BJ, BS], BIG, part_ptr.dtype.element_ty)
    for s0 in range(0, S, BS):
        ss = s0 + tl.arange(0, BS)
        m = j_ok[:, None] & (ss < S)[None, :]
        ptrs = part_ptr + ss[None, :].to(tl.int64) * J + jj[:, None]
        if IS_FLOAT:
            v = tl.load(ptrs, mask=m, other=float("inf")).to(tl.float32)
            acc = tl.minimum(acc, v, propagate_nan=tl.PropagateNan.ALL)
        else:
            acc = tl.minimum(acc, tl.load(ptrs, mask=m, other=BIG))
    res = tl.min(acc, axis=1)
    if IS_FLOAT:
        has_nan = tl.max((acc != acc).to(tl.int32), axis=1) > 0
        res = tl.where(has_nan, float("nan"), res)
    tl.store(out_ptr + (jj // I) * oo + (jj % I) * oi, res.to(out_ptr.dtype.element_ty),
             mask=j_ok)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _merge(dims):
    """Sort (size, stride, *more strides) by stride, descending, drop size-1 dims, and merge
    neighbours that every stride column walks as one."""
    groups = []
    for d in sorted((d for d in dims if d[0] != 1), key=lambda t: -t[1]):
        if groups and all(g == d[0] * s for g, s in zip(groups[-1][1:], d[1:])):
            groups[-1] = (groups[-1][0] * d[0],) + tuple(d[1:])
        else:
            groups.append(tuple(d))
    return groups


def _plan(x, red, out_strides):
    kept = _merge([(x.shape[d], x.stride(d), out_strides[d]) for d in range(x.dim())
                   if d not in red])
    reduced = _merge([(x.shape[d], x.stride(d)) for d in red])
    if len(kept) > 2 or len(reduced) > 2:
        return None
    kept = [(1, 0, 0)] * (2 - len(kept)) + kept
    reduced = [(1, 0)] * (2 - len(reduced)) + reduced
    return kept, reduced


def _config(J, K1, K2, xi, xk2, gpu):
    """(BJ, BK, splits of K1, splits of K2, num_warps)."""
    if not gpu:
        # The interpreter runs one program at a time in numpy: few, large tiles, no split.
        if xk2 == 1 or xi != 1:
            bk = min(_pow2(K2), 65536)
            bj = min(_pow2(J), max(1, 131072 // bk))
        else:
            bj = min(_pow2(J), 4096)
            bk = min(_pow2(K2), max(1, 131072 // bj))
        return bj, bk, 1, 1, 4
    if xk2 == 1 or xi != 1:
        bk = min(_pow2(K2), 2048)
        bj = min(_pow2(J), max(1, 4096 // bk))
    else:
        bj = min(_pow2(J), 128)
        bk = min(_pow2(K2), max(1, 4096 // bj))
    warps = 8 if bj * bk >= 4096 else 4
    tiles = triton.cdiv(J, bj)
    want = 1024  # programs, a few per SM of an H200
    s1 = s2 = 1
    if tiles < want:
        room = want // tiles
        s1 = max(1, min(K1, room))
        room //= s1
        s2 = max(1, min(triton.cdiv(K2, 4 * bk), room))
    return bj, bk, s1, s2, warps


def _amin_into(x, dim, keepdim, out):
    nd = x.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    n = max(nd, 1)
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"amin(): dim {d} out of range for a tensor of {nd} dimensions")
    red = sorted({d % n for d in dims})
    if len(red) != len(dims):
        raise RuntimeError("amin(): a dim appears multiple times in the list of dims")
    if not dims:
        red = list(range(nd))
    if nd and any(x.shape[d] == 0 for d in red):
        raise RuntimeError("amin(): Expected reduction dim to have non-zero size.")
    if nd == 0:
        red = []
    if keepdim:
        shape = [1 if d in red else x.shape[d] for d in range(nd)]
    else:
        shape = [x.shape[d] for d in range(nd) if d not in red]
    if out is None:
        out = torch.empty(shape, dtype=x.dtype, device=x.device)
    elif list(out.shape) != shape:
        raise RuntimeError(f"amin(): out has shape {list(out.shape)}, expected {shape}")
    if out.numel() == 0:
        return out
    target = out
    if x.dtype == torch.bool:
        x, target = x.view(torch.uint8), out.view(torch.uint8)
    kept = [d for d in range(nd) if d not in red]
    if keepdim:
        ostr = {d: target.stride(d) for d in kept}
    else:
        ostr = {d: target.stride(j) for j, d in enumerate(kept)}
    plan = _plan(x, red, ostr)
    tmp = None
    if plan is None:
        # Rare: more than two groups of either kind. Reduce a contiguous copy (kept dims first)
        # into a contiguous result, then place it.
        x = x.permute(kept + red).contiguous()
        tmp = torch.empty([x.shape[j] for j in range(len(kept))], dtype=target.dtype,
                          device=x.device)
        ostr = {j: tmp.stride(j) for j in range(len(kept))}
        plan = _plan(x, list(range(len(kept), nd)), ostr)
    (O, xo, oo), (I, xi, oi) = plan[0]
    (K1, xk1), (K2, xk2) = plan[1]
    gpu = x.device.type != "cpu"
    if not gpu and K1 > K2:
        # The interpreter pays per loop iteration, not per uncoalesced load: tile the longer group.
        (K1, xk1), (K2, xk2) = (K2, xk2), (K1, xk1)
    J = O * I
    is_float = x.dtype.is_floating_point
    big = 0 if is_float else torch.iinfo(x.dtype).max
    bj, bk, s1, s2, warps = _config(J, K1, K2, xi, xk2, gpu)
    k1_per = triton.cdiv(K1, s1)
    s1 = triton.cdiv(K1, k1_per)
    k2_per = triton.cdiv(triton.cdiv(K2, s2), bk) * bk
    s2 = triton.cdiv(K2, k2_per)
    dst = target if tmp is None else tmp
    splits = s1 * s2
    part = dst
    if splits > 1:
        part = torch.empty((splits, J), dtype=torch.float32 if is_float else dst.dtype,
                           device=x.device)
    _amin_kernel[(triton.cdiv(J, bj), splits)](
        x, dst, part, J, I, K1, K2, xo, xi, xk1, xk2, oo, oi, k1_per, k2_per, s2,
        BIG=big, BJ=bj, BK=bk, IS_FLOAT=is_float, HAS_O=O > 1, SPLIT=splits > 1,
        num_warps=warps)
    if splits > 1:
        pj = min(_pow2(J), 128)
        ps = max(1, min(_pow2(splits), 4096 // pj))
        _amin_parts_kernel[(triton.cdiv(J, pj),)](part, dst, splits, J, I, oo, oi, BIG=big,
                                                  BJ=pj, BS=ps, IS_FLOAT=is_float,
                                                  num_warps=4)
    if tmp is not None:
        out.copy_((tmp.view(out.dtype) if out.dtype == torch.bool else tmp).view(out.shape))
    return out


def amin(self: torch.Tensor, dim: list[int] = (), keepdim: bool = False) -> torch.Tensor:
    return _amin_into(self, dim, keepdim, None)


def amin_out(self: torch.Tensor, dim: list[int] = (), keepdim: bool = False, *,
             out: torch.Tensor) -> torch.Tensor:
    return _amin_into(self, dim, keepdim, out)
