"""Shipped solution for aten::_softmax: one Triton kernel over rows of the softmax dimension.

The tensor is seen as R rows x N: N is the softmax dimension, the other dims are merged (sorted
by input stride, neighbours merged where both the input and the output walk them as one) into
at most two groups, O x M, whose product is the row count. Input and output are accessed
through their own strides: transposed, strided and offset inputs and non-contiguous `out=`
tensors need no copy; only layouts needing a third group are copied first.

A program owns a [BR rows, BN] tile. When the softmax dim is the contiguous one the tile is long
along N; when the rows are (softmax over a leading or middle dim) it is wide across rows, so
every load is coalesced either way. A row that fits in one tile is loaded once, its max, sum and
outputs computed from registers; a longer row takes an online pass (running max, rescaled
running sum) and a second pass that writes. Everything is computed in float32 and rounded once
on store (to float32 when half_to_float asks for it).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, R, M, N, xo, xm, xn, yo, ym, yn,
                    BR: tl.constexpr, BN: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    o = rows // M
    m = rows - o * M
    x_row = x_ptr + (o * xo + m * xm)[:, None]
    y_row = y_ptr + (o * yo + m * ym)[:, None]
    cols = tl.arange(0, BN)
    y_ty = y_ptr.dtype.element_ty
    if ONE_TILE:
        c_off = cols.to(tl.int64)[None, :]
        mask = r_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + c_off * xn, mask=mask, other=float("-inf")).to(tl.float32)
        # A row holding NaN or +inf gives NaN everywhere, an all -inf row gives 0/0 = NaN: the
        # arithmetic below does both, as torch does.
        mx = tl.max(x, axis=1)
        e = tl.exp(x - mx[:, None])
        inv = 1.0 / tl.sum(e, axis=1)
        tl.store(y_row + c_off * yn, (e * inv[:, None]).to(y_ty), mask=mask)
    else:
        run_m = tl.full([BR], float("-inf"), tl.float32)
        run_s = tl.zeros([BR], tl.float32)
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            x = tl.load(x_row + c.to(tl.int64)[None, :] * xn, mask=mask,
                        other=float("-inf")).to(tl.float32)
            new_m = tl.maximum(run_m, tl.max(x, axis=1))
            # While a row has seen only -inf, shift by 0: exp(-inf) = 0 keeps the sum at 0.
            shift = tl.where(new_m == float("-inf"), 0.0, new_m)
            run_s = run_s * tl.exp(run_m - shift) + tl.sum(tl.exp(x - shift[:, None]), axis=1)
            run_m = new_m
        shift = tl.where(run_m == float("-inf"), 0.0, run_m)
        inv = 1.0 / run_s
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            c_off = c.to(tl.int64)[None, :]
            x = tl.load(x_row + c_off * xn, mask=mask, other=float("-inf")).to(tl.float32)
            tl.store(y_row + c_off * yn, (tl.exp(x - shift[:, None]) * inv[:, None]).to(y_ty),
                     mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _row_groups(x, y, dim):
    """[(O, xo, yo), (M, xm, ym)] for the dims other than `dim`, or None if they need three."""
    groups = []
    dims = [(x.shape[d], x.stride(d), y.stride(d)) for d in range(x.dim())
            if d != dim and x.shape[d] != 1]
    for size, xs, ys in sorted(dims, key=lambda t: -t[1]):
        if groups and groups[-1][1] == size * xs and groups[-1][2] == size * ys:
            groups[-1] = (groups[-1][0] * size, xs, ys)
        else:
            groups.append((size, xs, ys))
    if len(groups) > 2:
        return None
    return [(1, 0, 0)] * (2 - len(groups)) + groups


def _tiles(R, N, rows_contiguous, gpu):
    """(BR, BN, ONE_TILE, num_warps)."""
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        bn = min(_pow2(N), 131072)
        br = min(_pow2(R), max(1, 131072 // bn))
        return br, bn, N <= bn, 4
    if rows_contiguous:
        # Softmax over a non-contiguous dim: 32+ contiguous rows per load.
        br = min(_pow2(R), 64)
        while br > 32 and triton.cdiv(R, br) < 264:
            br //= 2
        bn = min(_pow2(N), max(1, 8192 // br))
        return br, bn, N <= bn, 8
    if N <= 16384:
        bn = _pow2(N)
        br = max(1, min(_pow2(R), 4096 // bn))
        return br, bn, True, min(16, max(4, br * bn // 512))
    return 1, 4096, False, 16


def _softmax_into(x, dim, out_dtype, out):
    nd = x.dim()
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"_softmax(): dim {dim} out of range for a tensor of {nd} dimensions")
    dim %= n
    if out is None:
        out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    elif out.shape != x.shape or out.dtype != out_dtype:
        raise RuntimeError(f"_softmax(): out must be {out_dtype} of shape {list(x.shape)}")
    if out.numel() == 0:
        return out
    xv, yv = (x.reshape(1), out.reshape(1)) if nd == 0 else (x, out)
    tmp = None
    groups = _row_groups(xv, yv, dim)
    if groups is None:
        xv = xv.contiguous()
        groups = _row_groups(xv, yv, dim)
        if groups is None:
            tmp = yv = torch.empty(xv.shape, dtype=out_dtype, device=x.device)
            groups = _row_groups(xv, yv, dim)
    (O, xo, yo), (M, xm, ym) = groups
    N, xn, yn = xv.shape[dim], xv.stride(dim), yv.stride(dim)
    R = O * M
    rows_contiguous = xm == 1 and xn != 1 and M > 1
    br, bn, one_tile, warps = _tiles(R, N, rows_contiguous, x.device.type != "cpu")
    _softmax_kernel[(triton.cdiv(R, br),)](xv, yv, R, M, N, xo, xm, xn, yo, ym, yn,
                                           BR=br, BN=bn, ONE_TILE=one_tile, num_warps=warps)
    if tmp is not None:
        out.copy_(tmp)
    return out


def _out_dtype(x, half_to_float):
    if half_to_float:
        if x.dtype != torch.float16:
            raise RuntimeError("_softmax(): half_to_float conversion is supported for Half only")
        return torch.float32
    return x.dtype


def _softmax(self: torch.Tensor, dim: int, half_to_float: bool) -> torch.Tensor:
    return _softmax_into(self, dim, _out_dtype(self, half_to_float), None)


def _softmax_out(self: torch.Tensor, dim: int, half_to_float: bool, *,
                 out: torch.Tensor) -> torch.Tensor:
    return _softmax_into(self, dim, _out_dtype(self, half_to_float), out)
