"""Shipped solution for aten::pairwise_distance: one row-reduction kernel.

x1 and x2 are broadcast against each other by expanding (stride-0 views, no copies); the last
dimension is the reduced one and up to three leading dimensions are decomposed from the row
index inside the kernel, each operand with its own strides. Each program takes BR rows and walks
the reduced dimension in BD chunks: d = x1 - x2 + eps in float32, then the p-norm of d:
p = 2 (sqrt of the sum of squares), 1 (sum of |d|), +inf / -inf (max / min of |d|), 0 (count of
non-zeros) or a general p ((sum |d|^p)^(1/p) through exp2/log2). Sums accumulate in float32;
NaN propagates (tracked explicitly for the max/min forms). The result is rounded once.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _pairwise_distance_kernel(x_ptr, y_ptr, out_ptr, R, D, A1, A2,
                              sx0, sx1, sx2, sxd, sy0, sy1, sy2, syd, eps, p,
                              MODE: tl.constexpr, BR: tl.constexpr, BD: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    i2 = rows % A2
    t = rows // A2
    i1 = t % A1
    i0 = t // A1
    xrow = x_ptr + (i0 * sx0 + i1 * sx1 + i2 * sx2)
    yrow = y_ptr + (i0 * sy0 + i1 * sy1 + i2 * sy2)
    if MODE == 3:
        acc = tl.full((BR, BD), float("inf"), tl.float32)
    else:
        acc = tl.zeros((BR, BD), dtype=tl.float32)
    nan = tl.zeros((BR, BD), dtype=tl.int32)
    cols = tl.arange(0, BD)
    for d0 in range(0, D, BD):
        k = (d0 + cols).to(tl.int64)
        m = r_ok[:, None] & (k < D)[None, :]
        a = tl.load(xrow[:, None] + k[None, :] * sxd, mask=m, other=0.0).to(tl.float32)
        b = tl.load(yrow[:, None] + k[None, :] * syd, mask=m, other=0.0).to(tl.float32)
        v = tl.abs(a - b + eps)
        if MODE == 0:  # p = 2
            acc += tl.where(m, v * v, 0.0)
        elif MODE == 1:  # p = 1
            acc += tl.where(m, v, 0.0)
        elif MODE == 2:  # p = +inf
            acc = tl.where(m & (v > acc), v, acc)
            nan = nan | (m & (v != v)).to(tl.int32)
        elif MODE == 3:  # p = -inf
            acc = tl.where(m & (v < acc), v, acc)
            nan = nan | (m & (v != v)).to(tl.int32)
        elif MODE == 4:  # p = 0: number of non-zeros
            acc += tl.where(m & (v != 0.0), 1.0, 0.0)
        else:  # general p > 0
            acc += tl.where(m, tl.exp2(p * tl.log2(v)), 0.0)
    if MODE == 2:
        res = tl.max(acc, axis=1)
    elif MODE == 3:
        res = tl.min(acc, axis=1)
    else:
        res = tl.sum(acc, axis=1)
    if MODE == 0:
        res = tl.sqrt(res)
    elif MODE == 5:
        res = tl.exp2(tl.log2(res) / p)
    if MODE == 2 or MODE == 3:
        res = tl.where(tl.max(nan, axis=1) > 0, float("nan"), res)
    tl.store(out_ptr + rows, res.to(out_ptr.dtype.element_ty), mask=r_ok)


def _pow2(n):
    return triton.next_power_of_2(max(int(n), 1))


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def pairwise_distance(x1: torch.Tensor, x2: torch.Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> torch.Tensor:
    if x1.dtype != x2.dtype or x1.dtype not in _FLOATS:
        raise RuntimeError("pairwise_distance: x1 and x2 must share a float16/bfloat16/float32 dtype")
    nd = max(x1.dim(), x2.dim())
    if nd == 0:
        raise RuntimeError("pairwise_distance: inputs must have at least one dimension")
    full = list(torch.broadcast_shapes(x1.shape, x2.shape))
    a = x1.expand(full)
    b = x2.expand(full)
    D = full[-1]
    lead = full[:-1]
    out_shape = lead + ([1] if keepdim else [])
    out = torch.empty(out_shape, dtype=x1.dtype, device=x1.device)
    R = out.numel()
    if R == 0:
        return out
    p = float(p)
    if p == 2.0:
        mode = 0
    elif p == 1.0:
        mode = 1
    elif p == math.inf:
        mode = 2
    elif p == -math.inf:
        mode = 3
    elif p == 0.0:
        mode = 4
    elif p > 0:
        mode = 5
    else:
        raise RuntimeError("pairwise_distance: finite negative p is not supported")
    if len(lead) > 3:  # merge the leading dims of views that allow it, else copy
        a = a.reshape([-1, D])
        b = b.reshape([-1, D])
        lead = [R]
    pad = 3 - len(lead)
    sizes = [1] * pad + lead
    sx = [0] * pad + [a.stride(d) for d in range(len(lead))]
    sy = [0] * pad + [b.stride(d) for d in range(len(lead))]
    gpu = x1.device.type != "cpu"
    bd = min(_pow2(D), 1024 if gpu else 8192)
    br = min(_pow2(R), max(1, (4096 if gpu else 65536) // bd))
    grid = (triton.cdiv(R, br),)
    _pairwise_distance_kernel[grid](a, b, out, R, D, sizes[1], sizes[2],
                                    sx[0], sx[1], sx[2], a.stride(-1),
                                    sy[0], sy[1], sy[2], b.stride(-1), float(eps), p,
                                    MODE=mode, BR=br, BD=bd, num_warps=4)
    return out
