"""Shipped solution for vLLM's hadacore_transform: one Triton kernel, one read and one write.

A program owns BR whole rows (vectors along the last dimension, n elements each, n a power of
two), read once through their strides into float32 registers. The transform runs there as
log2(n) butterfly stages: at stage s the row is viewed as [n / 2h, 2, h] with h = 2**s, and the
two halves of every pair become their sum and difference (a reduction over the axis of size 2,
with weights (1, 1) and (1, -1), then broadcast back), which is the Sylvester Hadamard product.
The rows are scaled by 1/sqrt(n) once and stored, rounded once to the dtype, into x (inplace)
or into a new contiguous tensor. Stage sizes are compile-time constants, so the loop unrolls; they are written as inline
constexpr expressions of the static loop index (no `h: tl.constexpr = ...` in the loop body:
the compiler, unlike the interpreter, refuses to reassign a constexpr name).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _hadamard_kernel(x_ptr, y_ptr, R, D1, sx0, sx1, sxl, sy0, sy1, syl, scale,
                     N: tl.constexpr, LOG: tl.constexpr, BR: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    cols = tl.arange(0, N).to(tl.int64)
    r_ok = rows < R
    r0 = rows // D1
    r1 = rows % D1
    mask = r_ok[:, None] & (cols < N)[None, :]
    src = (r0 * sx0 + r1 * sx1)[:, None] + (cols * sxl)[None, :]
    v = tl.load(x_ptr + src, mask=mask, other=0.0).to(tl.float32)
    k = tl.arange(0, 2)
    sgn = (1 - 2 * k).to(tl.float32)
    for s in tl.static_range(LOG):
        # The stage width h = 2**s is written out inline (1 << s): a constexpr annotation
        # inside the loop would be a reassignment, which the compiler rejects.
        p = tl.reshape(v, [BR * (N // (2 << s)), 2, 1 << s])
        add = tl.sum(p, axis=1)
        sub = tl.sum(p * sgn[None, :, None], axis=1)
        p = tl.where(k[None, :, None] == 0, add[:, None, :], sub[:, None, :])
        v = tl.reshape(p, [BR, N])
    v = v * scale
    dst = (r0 * sy0 + r1 * sy1)[:, None] + (cols * syl)[None, :]
    tl.store(y_ptr + dst, v.to(y_ptr.dtype.element_ty), mask=mask)


def _rows_view(shape, strides):
    """(rows, D1, s0, s1) addressing every leading index as r0 * s0 + r1 * s1, r0 = r // D1,
    r1 = r % D1, merging all leading dimensions but the last into one (it must be mergeable)."""
    lead, st = list(shape[:-1]), list(strides[:-1])
    if not lead:
        return 1, 1, 0, 0
    d1, s1 = lead[-1], st[-1]
    d0, s0 = 1, 0
    for i in range(len(lead) - 2, -1, -1):
        if lead[i] == 1:
            continue
        if d0 == 1:
            d0, s0 = lead[i], st[i]
        elif st[i] == s0 * d0:
            d0 *= lead[i]
        else:
            return None
    return d0 * d1, d1, s0, s1


def hadacore_transform(x: torch.Tensor, inplace: bool) -> torch.Tensor:
    if x.dim() < 1:
        raise ValueError("hadacore_transform: x needs a last dimension")
    n = x.shape[-1]
    if n < 1 or n & (n - 1) or n > 1 << 15:
        raise ValueError(f"hadacore_transform: the last dimension must be a power of two up to "
                         f"32768, got {n}")
    y = x if inplace else torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return y
    xv = _rows_view(x.shape, x.stride())
    if xv is None:
        raise ValueError("hadacore_transform: the leading dimensions of x cannot be merged "
                         "into rows (copy it contiguous first)")
    yv = _rows_view(y.shape, y.stride())
    if yv is None:
        raise ValueError("hadacore_transform: the leading dimensions of x cannot be merged")
    rows, d1, sx0, sx1 = xv
    _, _, sy0, sy1 = yv
    if x.device.type == "cpu":
        # The interpreter runs programs one after another in numpy: few, large tiles.
        br = min(triton.next_power_of_2(rows), max(1, 65536 // n))
        warps = 4
    else:
        # About 4096 elements a program, in registers; the largest rows use 16 warps.
        br = min(triton.next_power_of_2(rows), max(1, 4096 // n))
        tile = br * n
        warps = 4 if tile <= 2048 else (8 if tile <= 8192 else 16)
    log = n.bit_length() - 1
    _hadamard_kernel[(triton.cdiv(rows, br),)](
        x, y, rows, d1, sx0, sx1, x.stride(-1), sy0, sy1, y.stride(-1), float(n) ** -0.5,
        N=n, LOG=log, BR=br, num_warps=warps)
    return y
