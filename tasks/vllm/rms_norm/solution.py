"""Shipped solution for vLLM's rms_norm: one Triton kernel, one read of `input` and one write of
`out`.

The tensors are seen as R rows x N (N = hidden_size, the last dimension). The leading
dimensions are merged where both `input` and `out` walk them as one, into at most three groups
whose product is R, and both tensors are addressed through their own strides: q/k-norm views
([tokens, heads, head_size]), transposed, strided and offset inputs need no copy.

A program owns a [BR rows, BN] tile. A row of up to 16384 elements fits one tile: it is loaded
once, its sum of squares and outputs computed from registers (short rows, e.g. head_size 64 or
128, are packed many to a program so that every program moves a few thousand elements).
Longer rows take two passes over column chunks (sum of squares, then normalise and write).

Everything is computed in float32. As in vLLM's kernel the normalised value is rounded to the
input dtype before the multiplication by the weight, and the product is rounded once on store;
the product of two float16 (bfloat16) numbers is exact in float32, so that rounding is the one
of a float16 (bfloat16) multiplication.
"""

import torch
import triton
import triton.language as tl

_MAX_ONE_TILE = 16384  # longest row kept in registers; longer rows take two passes


@triton.jit
def _rms_norm_kernel(y_ptr, x_ptr, w_ptr, eps, R, N, S1, S2,
                     xs0, xs1, xs2, xn, ys0, ys1, ys2, yn, wn,
                     BR: tl.constexpr, BN: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    # Row index -> (i0, i1, i2) over the merged leading dimensions of sizes (R / S1 / S2, S1, S2).
    i2 = rows % S2
    t = rows // S2
    i1 = t % S1
    i0 = t // S1
    x_row = x_ptr + (i0 * xs0 + i1 * xs1 + i2 * xs2)[:, None]
    y_row = y_ptr + (i0 * ys0 + i1 * ys1 + i2 * ys2)[:, None]
    cols = tl.arange(0, BN).to(tl.int64)
    x_ty = x_ptr.dtype.element_ty
    y_ty = y_ptr.dtype.element_ty
    if ONE_TILE:
        c_ok = cols < N
        mask = r_ok[:, None] & c_ok[None, :]
        x = tl.load(x_row + (cols * xn)[None, :], mask=mask, other=0.0).to(tl.float32)
        inv = tl.rsqrt(tl.sum(x * x, axis=1) / N + eps)
        w = tl.load(w_ptr + cols * wn, mask=c_ok, other=0.0).to(tl.float32)
        y = (x * inv[:, None]).to(x_ty).to(tl.float32) * w[None, :]
        tl.store(y_row + (cols * yn)[None, :], y.to(y_ty), mask=mask)
    else:
        # Squares accumulated per lane and summed once at the end: the float32 error grows with
        # the number of chunks, not with N.
        acc = tl.zeros([BR, BN], tl.float32)
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            x = tl.load(x_row + (c * xn)[None, :], mask=mask, other=0.0).to(tl.float32)
            acc += x * x
        inv = tl.rsqrt(tl.sum(acc, axis=1) / N + eps)
        for start in range(0, N, BN):
            c = start + cols
            c_ok = c < N
            mask = r_ok[:, None] & c_ok[None, :]
            x = tl.load(x_row + (c * xn)[None, :], mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + c * wn, mask=c_ok, other=0.0).to(tl.float32)
            y = (x * inv[:, None]).to(x_ty).to(tl.float32) * w[None, :]
            tl.store(y_row + (c * yn)[None, :], y.to(y_ty), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _row_groups(tensors):
    """[(size, strides of each tensor)] x 3 for the leading dims (outermost first), merged where
    every tensor walks two neighbours as one; None if they need more than three groups."""
    lead = tensors[0].dim() - 1
    dims = [(tensors[0].shape[d], [t.stride(d) for t in tensors]) for d in range(lead)
            if tensors[0].shape[d] != 1]
    groups = []
    for size, strides in dims:
        if groups and all(g == size * s for g, s in zip(groups[-1][1], strides)):
            groups[-1] = (groups[-1][0] * size, strides)
        else:
            groups.append((size, strides))
    if len(groups) > 3:
        return None
    return [(1, [0] * len(tensors))] * (3 - len(groups)) + groups


def _tiles(R, N, gpu):
    """(BR, BN, ONE_TILE, num_warps)."""
    if N > _MAX_ONE_TILE:
        return 1, 4096, False, 16
    bn = _pow2(N)
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        return min(_pow2(R), max(1, 65536 // bn)), bn, True, 4
    br = min(_pow2(R), max(1, 4096 // bn))
    return br, bn, True, min(16, max(4, br * bn // 512))


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor,
             epsilon: float) -> None:
    if input.dim() < 1 or out.shape != input.shape or weight.shape != input.shape[-1:]:
        raise ValueError(f"rms_norm: out {list(out.shape)} and weight {list(weight.shape)} do "
                         f"not fit input {list(input.shape)}")
    N = input.shape[-1]
    R = input.numel() // N if N else 0
    if R == 0:
        return None
    x = input
    groups = _row_groups([x, out])
    if groups is None:
        x = x.contiguous()
        groups = _row_groups([x, out])
        if groups is None:
            raise ValueError("rms_norm: `out` needs more than three strides for its rows")
    (_, (xs0, ys0)), (S1, (xs1, ys1)), (S2, (xs2, ys2)) = groups
    br, bn, one_tile, warps = _tiles(R, N, x.device.type != "cpu")
    _rms_norm_kernel[(triton.cdiv(R, br),)](
        out, x, weight, float(epsilon), R, N, S1, S2, xs0, xs1, xs2, x.stride(-1),
        ys0, ys1, ys2, out.stride(-1), weight.stride(0),
        BR=br, BN=bn, ONE_TILE=one_tile, num_warps=warps)
    return None
