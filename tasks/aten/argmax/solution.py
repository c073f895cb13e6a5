"""Shipped solution for aten::argmax: a strided (value, index) reduction kernel, split over K
when the outputs alone cannot fill the GPU.

The problem is described as out[o, i] = argmax over (k1, k2) of x[o, i, k1, k2]: kept dims and
reduced dims are each sorted by input stride and merged where they walk memory as one, into at
most two groups apiece, so transposed, strided and offset inputs are read in place. Every
reduced group also carries its multiplier in the logical index (1 along `dim`; the row-major
strides of the logical shape for dim=None), so the index reported is the logical one whatever
order memory is walked in.

The combine rule is order-free: the larger value wins, NaN beats every number, and among equal
values (or NaNs) the smaller index wins. A program keeps a [BJ outputs, BK terms] tile of
(value, index) pairs, merges each loaded tile in elementwise, and resolves the tile once at the
end: the maximum (NaN if any lane holds one), then the smallest index holding it. Values are
compared as float32 (exact for 16-bit inputs) or in their integer type.
"""

import torch
import triton
import triton.language as tl

@triton.jit
def _merge_pairs(av, ai, v, i, IS_FLOAT: tl.constexpr):
    if IS_FLOAT:
        v_nan = v != v
        a_nan = av != av
        gt = (v > av) | (v_nan & ~a_nan)
        eq = (v == av) | (v_nan & a_nan)
    else:
        gt = v > av
        eq = v == av
    take = gt | (eq & (i < ai))
    return tl.where(take, v, av), tl.where(take, i, ai)


@triton.jit
def _resolve(av, ai, IS_FLOAT: tl.constexpr):
    """Per row of a [BJ, BK] tile: the smallest index among the lanes holding the maximum."""
    if IS_FLOAT:
        a_nan = av != av
        mx = tl.max(tl.where(a_nan, float("-inf"), av), axis=1)
        any_nan = tl.max(a_nan.to(tl.int32), axis=1) > 0
        cand = tl.where(any_nan[:, None], a_nan, av == mx[:, None])
        best_v = tl.where(any_nan, float("nan"), mx)
    else:
        best_v = tl.max(av, axis=1)
        cand = av == best_v[:, None]
    best_i = tl.min(tl.where(cand, ai, 9223372036854775807), axis=1)
    return best_v, best_i


@triton.jit
def _argmax_kernel(x_ptr, out_ptr, pv_ptr, pi_ptr, J, I, K1, K2, xo, xi, xk1, xk2, oo, oi,
                   m1, m2, k1_per, k2_per, S2, SMALL: tl.constexpr, BJ: tl.constexpr,
                   BK: tl.constexpr, IS_FLOAT: tl.constexpr, HAS_O: tl.constexpr,
                   SPLIT: tl.constexpr):
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
    lane_idx = kk0[None, :].to(tl.int64) * m2
    if IS_FLOAT:
        av = tl.full([BJ, BK], float("-inf"), tl.float32)
    else:
        av = tl.full([BJ, BK], SMALL, x_ptr.dtype.element_ty)
    ai = tl.full([BJ, BK], 9223372036854775807, tl.int64)
    row = k1_lo.to(tl.int64) * xk1 + k2_lo.to(tl.int64) * xk2
    row_idx = k1_lo.to(tl.int64) * m1 + k2_lo.to(tl.int64) * m2
    step = BK * xk2
    step_idx = BK * m2
    for _ in range(k1_lo, k1_hi):
        pos = row
        pos_idx = row_idx
        for k2 in range(k2_lo, k2_hi, BK):
            k_ok = kk0 < k2_hi - k2
            m = j_ok[:, None] & k_ok[None, :]
            if IS_FLOAT:
                v = tl.load(x_ptr + (offs + pos), mask=m, other=float("-inf")).to(tl.float32)
            else:
                v = tl.load(x_ptr + (offs + pos), mask=m, other=SMALL)
            i = tl.where(k_ok[None, :], lane_idx + pos_idx, 9223372036854775807)
            av, ai = _merge_pairs(av, ai, v, i, IS_FLOAT)
            pos += step
            pos_idx += step_idx
        row += xk1
        row_idx += m1
    best_v, best_i = _resolve(av, ai, IS_FLOAT)
    if SPLIT:
        dst = s.to(tl.int64) * J + jj
        tl.store(pv_ptr + dst, best_v.to(pv_ptr.dtype.element_ty), mask=j_ok)
        tl.store(pi_ptr + dst, best_i, mask=j_ok)
    else:
        tl.store(out_ptr + o_off, best_i, mask=j_ok)


@triton.jit
def _argmax_parts_kernel(pv_ptr, pi_ptr, out_ptr, S, J, I, oo, oi, SMALL: tl.constexpr,
                         BJ: tl.constexpr, BS: tl.constexpr, IS_FLOAT: tl.constexpr):
    jj = tl.program_id(0).to(tl.int64) * BJ + tl.arange(0, BJ)
    j_ok = jj < J
    if IS_FLOAT:
        av = tl.full([BJ, BS], float("-inf"), tl.float32)
    else:
        av = tl.full([BJ, BS], SMALL, pv_ptr.dtype.element_ty)
    ai = tl.full([BJ, BS], 9223372036854775807, tl.int64)
    for s0 in range(0, S, BS):
        ss = s0 + tl.arange(0, BS)
        m = j_ok[:, None] & (ss < S)[None, :]
        src = ss[None, :].to(tl.int64) * J + jj[:, None]
        if IS_FLOAT:
            v = tl.load(pv_ptr + src, mask=m, other=float("-inf"))
        else:
            v = tl.load(pv_ptr + src, mask=m, other=SMALL)
        i = tl.load(pi_ptr + src, mask=m, other=9223372036854775807)
        av, ai = _merge_pairs(av, ai, v, i, IS_FLOAT)
    best_v, best_i = _resolve(av, ai, IS_FLOAT)
    tl.store(out_ptr + (jj // I) * oo + (jj % I) * oi, best_i, mask=j_ok)


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


def _plan(x, red, mult, out_strides):
    kept = _merge([(x.shape[d], x.stride(d), out_strides[d]) for d in range(x.dim())
                   if d not in red])
    reduced = _merge([(x.shape[d], x.stride(d), mult[d]) for d in red])
    if len(kept) > 2 or len(reduced) > 2:
        return None
    kept = [(1, 0, 0)] * (2 - len(kept)) + kept
    reduced = [(1, 0, 0)] * (2 - len(reduced)) + reduced
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


def _argmax_into(x, dim, keepdim, out):
    nd = x.dim()
    n = max(nd, 1)
    if dim is None:
        if x.numel() == 0:
            raise RuntimeError("argmax(): Expected reduction dim to be specified for "
                               "input.numel() == 0.")
        red = list(range(nd))
        shape = [1] * nd if keepdim else []
    else:
        if not -n <= dim < n:
            raise IndexError(f"argmax(): dim {dim} out of range for a tensor of {nd} dimensions")
        d = dim % n
        red = [d] if nd else []
        if nd and x.shape[d] == 0:
            raise RuntimeError(f"argmax(): Expected reduction dim {d} to have non-zero size.")
        if keepdim:
            shape = [1 if j == d else x.shape[j] for j in range(nd)]
        else:
            shape = [x.shape[j] for j in range(nd) if j != d]
    if x.dtype == torch.bool:
        raise RuntimeError("argmax(): does not support bool input")
    if out is None:
        out = torch.empty(shape, dtype=torch.int64, device=x.device)
    elif list(out.shape) != shape or out.dtype != torch.int64:
        raise RuntimeError(f"argmax(): out must be int64 of shape {shape}")
    if out.numel() == 0:
        return out
    # Logical index multipliers of the reduced dims: row-major over the reduced dims only.
    mult, acc = {}, 1
    for d in reversed(red):
        mult[d] = acc
        acc *= x.shape[d]
    kept = [d for d in range(nd) if d not in red]
    if keepdim:
        ostr = {d: out.stride(d) for d in kept}
    else:
        ostr = {d: out.stride(j) for j, d in enumerate(kept)}
    plan = _plan(x, red, mult, ostr)
    tmp = None
    if plan is None:
        # Rare: more than two groups of either kind. Reduce a contiguous copy (kept dims first)
        # into a contiguous result, then place it.
        x = x.permute(kept + red).contiguous()
        nk = len(kept)
        new_red = list(range(nk, nd))
        mult = {nk + j: mult[d] for j, d in enumerate(red)}
        tmp = torch.empty([x.shape[j] for j in range(nk)], dtype=torch.int64, device=x.device)
        ostr = {j: tmp.stride(j) for j in range(nk)}
        plan = _plan(x, new_red, mult, ostr)
    (O, xo, oo), (I, xi, oi) = plan[0]
    (K1, xk1, m1), (K2, xk2, m2) = plan[1]
    gpu = x.device.type != "cpu"
    if not gpu and K1 > K2:
        # The interpreter pays per loop iteration, not per uncoalesced load: tile the longer group.
        (K1, xk1, m1), (K2, xk2, m2) = (K2, xk2, m2), (K1, xk1, m1)
    J = O * I
    is_float = x.dtype.is_floating_point
    small = 0 if is_float else torch.iinfo(x.dtype).min
    bj, bk, s1, s2, warps = _config(J, K1, K2, xi, xk2, gpu)
    k1_per = triton.cdiv(K1, s1)
    s1 = triton.cdiv(K1, k1_per)
    k2_per = triton.cdiv(triton.cdiv(K2, s2), bk) * bk
    s2 = triton.cdiv(K2, k2_per)
    dst = out if tmp is None else tmp
    splits = s1 * s2
    pv = pi = dst
    if splits > 1:
        pv = torch.empty((splits, J), dtype=torch.float32 if is_float else x.dtype,
                         device=x.device)
        pi = torch.empty((splits, J), dtype=torch.int64, device=x.device)
    _argmax_kernel[(triton.cdiv(J, bj), splits)](
        x, dst, pv, pi, J, I, K1, K2, xo, xi, xk1, xk2, oo, oi, m1, m2, k1_per, k2_per, s2,
        SMALL=small, BJ=bj, BK=bk, IS_FLOAT=is_float, HAS_O=O > 1, SPLIT=splits > 1,
        num_warps=warps)
    if splits > 1:
        pj = min(_pow2(J), 128)
        ps = max(1, min(_pow2(splits), 4096 // pj))
        _argmax_parts_kernel[(triton.cdiv(J, pj),)](pv, pi, dst, splits, J, I, oo, oi,
                                                    SMALL=small, BJ=pj, BS=ps,
                                                    IS_FLOAT=is_float, num_warps=4)
    if tmp is not None:
        out.copy_(tmp.view(out.shape))
    return out


def argmax(self: torch.Tensor, dim: int | None = None, keepdim: bool = False) -> torch.Tensor:
    return _argmax_into(self, dim, keepdim, None)


def argmax_out(self: torch.Tensor, dim: int | None = None, keepdim: bool = False, *,
               out: torch.Tensor) -> torch.Tensor:
    return _argmax_into(self, dim, keepdim, out)
