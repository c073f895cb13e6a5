"""Shipped solution for aten::mean: one strided reduction kernel, split over K when needed.

Every reduction is seen as out[o, i] = sum over (k1, k2) of x[o, k1, k2, i]: the reduced dims
are sorted by stride and merged where contiguous into at most two groups (K2, the inner one,
is tiled; K1 is a loop), and the kept dims likewise into at most two groups O and I, whose
outputs are enumerated together.
Strides come straight from the tensor, so transposed, strided and offset inputs need no copy;
a layout that needs more groups is permuted to kept-then-reduced order and copied first.

A program accumulates a [BJ outputs, BK terms] float32 tile and reduces it once at the end.
When K2 is the contiguous direction (row sums) the tile is long in K2; when the outputs are
(column sums) it is wide in them, so loads stay coalesced either way. When there are too few
output tiles to fill the GPU (full reductions, column sums of a few wide rows) the K range is
split across programs that write float32 partial sums, and a second kernel adds them in a
fixed order (deterministic). The mean divides the float32 sum by K once; K = 0 gives
0 / 0 = NaN, as torch does.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _mean_kernel(x_ptr, out_ptr, part_ptr, OI, I, K1, K2, xo, xi, xk1, xk2, oo, oi,
                k1_per, k2_per, S2, divisor, BK: tl.constexpr, BJ: tl.constexpr,
                HAS_O: tl.constexpr, SPLIT: tl.constexpr, ACC: tl.constexpr):
    s = tl.program_id(1)
    k1_lo = (s // S2) * k1_per
    k2_lo = (s % S2) * k2_per
    k2_hi = tl.minimum(K2, k2_lo + k2_per)
    # jj enumerates the outputs, o-major; the tile is [BJ, BK], reduced along K at the end.
    jj = tl.program_id(0).to(tl.int64) * BJ + tl.arange(0, BJ)
    j_ok = jj < OI
    if HAS_O:
        x_off = (jj // I) * xo + (jj % I) * xi
        o_off = (jj // I) * oo + (jj % I) * oi
    else:
        x_off = jj * xi
        o_off = jj * oi
    base = x_ptr + x_off[:, None]
    kk0 = tl.arange(0, BK)
    in_ty = out_ptr.dtype.element_ty
    acc = tl.zeros([BJ, BK], ACC)
    for k1 in range(0, k1_per):
        k1_abs = k1_lo + k1
        row = base + k1_abs.to(tl.int64) * xk1
        for k2 in range(0, k2_per, BK):
            kk = k2_lo + k2 + kk0
            mask = j_ok[:, None] & ((kk < k2_hi) & (k1_abs < K1))[None, :]
            v = tl.load(row + kk[None, :].to(tl.int64) * xk2, mask=mask, other=0.0)
            acc += v.to(in_ty).to(ACC)
    res = tl.sum(acc, axis=1)
    if SPLIT:
        tl.store(part_ptr + s.to(tl.int64) * OI + jj, res, mask=j_ok)
    else:
        tl.store(out_ptr + o_off, (res / divisor).to(out_ptr.dtype.element_ty), mask=j_ok)


@triton.jit
def _mean_parts_kernel(part_ptr, out_ptr, S, OI, I, oo, oi, divisor,
                      BS: tl.constexpr, BJ: tl.constexpr, ACC: tl.constexpr):
    jj = tl.program_id(0).to(tl.int64) * BJ + tl.arange(0, BJ)
    j_ok = jj < OI
    acc = tl.zeros([BJ, BS], ACC)
    for s0 in range(0, S, BS):
        ss = s0 + tl.arange(0, BS)
        mask = j_ok[:, None] & (ss < S)[None, :]
        acc += tl.load(part_ptr + ss[None, :].to(tl.int64) * OI + jj[:, None], mask=mask,
                       other=0.0)
    res = tl.sum(acc, axis=1) / divisor
    dst = (jj // I) * oo + (jj % I) * oi
    tl.store(out_ptr + dst, res.to(out_ptr.dtype.element_ty), mask=j_ok)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _merge(dims):
    """Sort (size, stride, ...) by stride, descending, and merge neighbours that are contiguous."""
    groups = []
    for d in sorted(dims, key=lambda t: -t[1]):
        if groups and all(g == d[0] * st for g, st in zip(groups[-1][1:], d[1:])):
            groups[-1] = (groups[-1][0] * d[0],) + tuple(d[1:])
        else:
            groups.append(tuple(d))
    return groups


def _plan(x, red, out_stride):
    """Groups for x reduced over dims `red`; None when more than two of either kind are needed."""
    kept = _merge([(x.shape[d], x.stride(d), out_stride[d]) for d in range(x.dim())
                   if d not in red and x.shape[d] != 1])
    k = math.prod(x.shape[d] for d in red)
    if k == 0:
        reduced = [(0, 0)]
    else:
        reduced = _merge([(x.shape[d], x.stride(d)) for d in red if x.shape[d] != 1])
    if len(kept) > 2 or len(reduced) > 2:
        return None
    kept = [(1, 0, 0)] * (2 - len(kept)) + kept
    reduced = [(1, 0)] * (2 - len(reduced)) + reduced
    return kept, reduced


def _config(OI, K1, K2, xi, xk2, gpu):
    """(BK, BJ, S1, S2, num_warps) for the reduction kernel over OI outputs."""
    # Row sums (K2 contiguous, or closer together than the outputs) tile long in K; column
    # sums tile wide in the outputs, which are then the contiguous direction.
    rows = xk2 == 1 or (xk2 != 0 and xk2 < xi) or OI == 1
    if not gpu:
        # CPU interpreter: each program instance and loop trip costs a Python-level pass, so
        # use big tiles and no split.
        cap = 65536
        if rows:
            bk = min(_pow2(K2), cap)
            bj = max(1, min(_pow2(OI), cap // bk))
        else:
            bj = min(_pow2(OI), 4096)
            bk = max(1, min(_pow2(K2), cap // bj))
        return bk, bj, 1, 1, 4
    # Measured on an H200 (16384 x 16384 sums): 4096-term rows when there are few outputs, and
    # column tiles at least 64 outputs wide (128 bytes of fp16) with split K filling the GPU.
    budget = 4096
    if rows:
        bk = min(_pow2(K2), 4096 if OI < 264 else 2048)
        bj = max(1, min(_pow2(OI), budget // bk))
        target = 4 * 132
    else:
        bj = min(_pow2(OI), 128)
        while bj > 64 and triton.cdiv(OI, bj) < 264:
            bj //= 2
        bk = max(1, min(_pow2(K2), budget // bj))
        target = 8 * 132
    warps = 8 if bk * bj >= 4096 else 4
    want = triton.cdiv(target, triton.cdiv(OI, bj))
    s1 = s2 = 1
    if want > 1 and K1 * K2 >= 8 * bk:
        s1 = min(K1, want)
        s2 = max(1, min(triton.cdiv(K2, 4 * bk), triton.cdiv(want, s1)))
    return bk, bj, s1, s2, warps


def _reduce(x, dims, keepdim, dtype):
    out_dtype = x.dtype if dtype is None else dtype
    nd = x.dim()
    if dims is None:
        dims = []
    elif isinstance(dims, int):
        dims = [dims]
    for d in dims:
        if not -max(nd, 1) <= d < max(nd, 1):
            raise IndexError(f"dim {d} out of range for a tensor of {nd} dimensions")
    red = sorted({d % max(nd, 1) for d in dims}) if len(dims) else list(range(nd))
    if keepdim:
        out_shape = [1 if d in red else x.shape[d] for d in range(nd)]
    else:
        out_shape = [x.shape[d] for d in range(nd) if d not in red]
    out = torch.empty(out_shape, dtype=out_dtype, device=x.device)
    if out.numel() == 0:
        return out
    if nd == 0:
        x, red, nd = x.reshape(1), [0], 1
    kept_dims = [d for d in range(nd) if d not in red]
    if keepdim:
        out_stride = {d: out.stride(d) for d in kept_dims}
    else:
        out_stride = {d: out.stride(j) for j, d in enumerate(kept_dims)}
    plan = _plan(x, red, out_stride)
    if plan is None:
        perm = kept_dims + list(red)
        x = x.permute(perm).contiguous()
        out_stride = {j: out_stride[d] for j, d in enumerate(kept_dims)}
        red = list(range(len(kept_dims), nd))
        plan = _plan(x, red, out_stride)
    (O, xo, oo), (I, xi, oi) = plan[0]
    (K1, xk1), (K2, xk2) = plan[1]
    k = K1 * K2
    divisor = float(k)  # 0.0 for an empty reduction: 0 / 0 = NaN
    acc = tl.float64 if out_dtype == torch.float64 else tl.float32
    gpu = x.device.type != "cpu"
    OI = O * I
    bk, bj, s1, s2, warps = _config(OI, K1, K2, xi, xk2, gpu)
    k1_per = triton.cdiv(K1, s1)
    s1 = triton.cdiv(K1, k1_per)
    k2_per = triton.cdiv(triton.cdiv(K2, s2), bk) * bk if K2 else 0
    s2 = triton.cdiv(K2, k2_per) if K2 else 1
    splits = s1 * s2
    grid = (triton.cdiv(OI, bj), splits)
    part_dtype = torch.float64 if acc == tl.float64 else torch.float32
    parts = out if splits == 1 else torch.empty((splits, OI), dtype=part_dtype, device=x.device)
    _mean_kernel[grid](x, out, parts, OI, I, K1, K2, xo, xi, xk1, xk2, oo, oi, k1_per, k2_per,
                      s2, divisor, BK=bk, BJ=bj, HAS_O=O > 1, SPLIT=splits > 1, ACC=acc,
                      num_warps=warps)
    if splits > 1:
        bj = min(_pow2(OI), 256)
        bs = max(1, min(_pow2(splits), 2048 // bj))
        _mean_parts_kernel[(triton.cdiv(OI, bj),)](parts, out, splits, OI, I, oo, oi, divisor,
                                                  BS=bs, BJ=bj, ACC=acc, num_warps=4)
    return out


def mean(self: torch.Tensor, *, dtype: torch.dtype | None = None) -> torch.Tensor:
    return _reduce(self, None, False, dtype)


def mean_dim(self: torch.Tensor, dim: list[int] | None, keepdim: bool = False, *,
             dtype: torch.dtype | None = None) -> torch.Tensor:
    return _reduce(self, dim, keepdim, dtype)
