"""Shipped solution for aten::renorm: one kernel, one program per slice (several per program on
the CPU interpreter, which pays per program).

`dim` is moved to the front (a view), so slice s is everything at index s along it, walked
through the other dimensions' strides (up to four of them, decomposed in the kernel). Each
program makes two passes over its slice: the first accumulates the p-norm in float32 (p = 2, 1,
+inf or a general p through exp2/log2), then factor = maxnorm / (norm + 1e-7) if norm > maxnorm
else 1; the second writes slice * factor through the output's strides (a fresh tensor or `out`).
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _renorm_kernel(x_ptr, out_ptr, S, n, R1, R2, R3,
                   sx0, sx1, sx2, sx3, sx4, so0, so1, so2, so3, so4, p, maxnorm,
                   MODE: tl.constexpr, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # ROWS slices per program (rows of a (ROWS, BLOCK) tile), each walked in BLOCK chunks.
    s = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    live = (s < S)[:, None]
    xs = x_ptr + (s * sx0)[:, None]
    os = out_ptr + (s * so0)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    acc = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        k = start + cols.to(tl.int64)
        m = (k < n) & live
        i4 = k % R3
        t = k // R3
        i3 = t % R2
        t = t // R2
        i2 = t % R1
        i1 = t // R1
        v = tl.abs(tl.load(xs + (i1 * sx1 + i2 * sx2 + i3 * sx3 + i4 * sx4), mask=m,
                           other=0.0).to(tl.float32))
        if MODE == 0:  # p = 2
            acc += v * v
        elif MODE == 1:  # p = 1
            acc += v
        elif MODE == 2:  # p = inf (NaN propagates: a NaN norm leaves the slice unscaled)
            acc = tl.where(m & ((v > acc) | (v != v)), v, acc)
        else:
            acc += tl.where(m, tl.exp2(p * tl.log2(v)), 0.0)
    if MODE == 2:
        has_nan = tl.max((acc != acc).to(tl.int32), axis=1)
        norm = tl.max(tl.where(acc != acc, 0.0, acc), axis=1)
        norm = tl.where(has_nan > 0, float("nan"), norm)
    else:
        norm = tl.sum(acc, axis=1)
    if MODE == 0:
        norm = tl.sqrt(norm)
    elif MODE == 3:
        norm = tl.exp2(tl.log2(norm) / p)
    factor = tl.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)[:, None]
    for start in range(0, n, BLOCK):
        k = start + cols.to(tl.int64)
        m = (k < n) & live
        i4 = k % R3
        t = k // R3
        i3 = t % R2
        t = t // R2
        i2 = t % R1
        i1 = t // R1
        v = tl.load(xs + (i1 * sx1 + i2 * sx2 + i3 * sx3 + i4 * sx4), mask=m, other=0.0)
        y = v.to(tl.float32) * factor
        tl.store(os + (i1 * so1 + i2 * so2 + i3 * so3 + i4 * so4),
                 y.to(out_ptr.dtype.element_ty), mask=m)


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _renorm_into(self, p, dim, maxnorm, out):
    if self.dtype not in _FLOATS:
        raise RuntimeError("renorm: self must be float16, bfloat16 or float32")
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("renorm: input needs at least 2 dimensions")
    if not -nd <= dim < nd:
        raise IndexError("renorm: dim out of range")
    dim %= nd
    p = float(p)
    if not p > 0:
        raise RuntimeError("renorm: non-positive norm not supported")
    if float(maxnorm) < 0:
        raise RuntimeError("renorm: expected maxnorm to be >= 0")
    if out is None:
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    elif out.shape != self.shape or out.dtype != self.dtype:
        raise RuntimeError(f"renorm: out must be {self.dtype} of shape {list(self.shape)}")
    if out.numel() == 0:
        return out
    x = self.movedim(dim, 0)
    o = out.movedim(dim, 0)
    rest = list(x.shape[1:])
    if len(rest) > 4:
        raise RuntimeError("renorm: at most 5 dimensions are supported")
    pad = 4 - len(rest)
    sizes = [1] * pad + rest
    sx = [0] * pad + [x.stride(d) for d in range(1, nd)]
    so = [0] * pad + [o.stride(d) for d in range(1, nd)]
    n = sizes[0] * sizes[1] * sizes[2] * sizes[3]
    mode = 0 if p == 2.0 else 1 if p == 1.0 else 2 if p == math.inf else 3
    cpu = self.device.type == "cpu"
    cap = 65536 if cpu else 4096
    block = min(triton.next_power_of_2(max(n, 1)), cap)
    S = x.shape[0]
    # One slice per program on the GPU. The CPU interpreter pays per program (a [1041, 3]
    # input renormed along dim 0 is 1041 programs of 3 elements), so there a program takes as
    # many slices as fit in `cap` elements.
    rows = max(1, min(triton.next_power_of_2(S), cap // block)) if cpu else 1
    grid = (triton.cdiv(S, rows),)
    _renorm_kernel[grid](x, o, S, n, sizes[1], sizes[2], sizes[3],
                         x.stride(0), sx[0], sx[1], sx[2], sx[3],
                         o.stride(0), so[0], so[1], so[2], so[3], p, float(maxnorm),
                         MODE=mode, ROWS=rows, BLOCK=block, num_warps=4)
    return out


def renorm(self: torch.Tensor, p, dim: int, maxnorm) -> torch.Tensor:
    return _renorm_into(self, p, dim, maxnorm, None)


def renorm_out(self: torch.Tensor, p, dim: int, maxnorm, *, out: torch.Tensor) -> torch.Tensor:
    return _renorm_into(self, p, dim, maxnorm, out)
