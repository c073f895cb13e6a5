"""Shipped solution for aten::softmax.int: one tiled Triton kernel for every `dim`.

The tensor is seen as O x M x N: N is the softmax dimension, and the other dimensions are merged
(sorted by stride, neighbours merged when contiguous in both input and output) into at most two
groups, M (the inner one) and O. Strides come straight from the tensors, so transposed, strided
and offset inputs need no copy; only a layout whose other dimensions do not merge into two
groups is copied to contiguous first.

A program owns a [BM, BN] tile: BM rows of M, BN elements along N. Rows whose softmax dimension
is contiguous (the usual last-dim case) are read along N; when M is the contiguous direction
(softmax over a leading or middle dimension) the tile is wide in M, so each load is still
coalesced. When a whole row fits the tile it is read once and kept in registers; longer rows use
an online pass (running max and rescaled sum) followed by a second pass that writes the output.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, M, N, m_blocks, xo, xm, xn, oo, om, on,
                    BM: tl.constexpr, BN: tl.constexpr, SINGLE: tl.constexpr):
    # One flat grid (a second grid axis would cap O at 65535): program = o * m_blocks + block.
    pid = tl.program_id(0)
    o = (pid // m_blocks).to(tl.int64)
    rows = (pid % m_blocks).to(tl.int64) * BM + tl.arange(0, BM)
    row_ok = rows < M
    x_rows = x_ptr + o * xo + rows[:, None] * xm
    out_rows = out_ptr + o * oo + rows[:, None] * om
    cols = tl.arange(0, BN)
    out_ty = out_ptr.dtype.element_ty
    if SINGLE:
        mask = row_ok[:, None] & (cols[None, :] < N)
        x = tl.load(x_rows + cols[None, :].to(tl.int64) * xn, mask=mask,
                    other=float("-inf")).to(out_ty).to(tl.float32)
        m = tl.max(x, axis=1)
        # A row that is all -inf keeps m = -inf; shifting by 0 then gives 0 / 0 = NaN, as torch.
        m = tl.where(m == float("-inf"), 0.0, m)
        e = tl.exp(x - m[:, None])
        inv = 1.0 / tl.where(row_ok, tl.sum(e, axis=1), 1.0)
        tl.store(out_rows + cols[None, :].to(tl.int64) * on, (e * inv[:, None]).to(out_ty),
                 mask=mask)
    else:
        m = tl.full([BM], float("-inf"), tl.float32)
        s = tl.zeros([BM], tl.float32)
        for start in range(0, N, BN):
            c = (start + cols).to(tl.int64)
            mask = row_ok[:, None] & (c[None, :] < N)
            x = tl.load(x_rows + c[None, :] * xn, mask=mask,
                        other=float("-inf")).to(out_ty).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            shift = tl.where(m_new == float("-inf"), 0.0, m_new)
            s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift[:, None]), axis=1)
            m = m_new
        shift = tl.where(m == float("-inf"), 0.0, m)
        inv = 1.0 / tl.where(row_ok, s, 1.0)
        for start in range(0, N, BN):
            c = (start + cols).to(tl.int64)
            mask = row_ok[:, None] & (c[None, :] < N)
            x = tl.load(x_rows + c[None, :] * xn, mask=mask,
                        other=float("-inf")).to(out_ty).to(tl.float32)
            y = tl.exp(x - shift[:, None]) * inv[:, None]
            tl.store(out_rows + c[None, :] * on, y.to(out_ty), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _groups(x: torch.Tensor, out: torch.Tensor, dim: int):
    """Merge the non-softmax dims into [(O, xo, oo), (M, xm, om)], or None if they need three."""
    dims = [(x.shape[d], x.stride(d), out.stride(d)) for d in range(x.dim())
            if d != dim and x.shape[d] != 1]
    dims.sort(key=lambda t: -t[1])
    groups = []
    for size, xs, os_ in dims:
        if groups and groups[-1][1] == size * xs and groups[-1][2] == size * os_:
            groups[-1] = (groups[-1][0] * size, xs, os_)
        else:
            groups.append((size, xs, os_))
    if len(groups) > 2:
        return None
    return [(1, 0, 0)] * (2 - len(groups)) + groups


def _tiles(M: int, O: int, N: int, row_mode: bool, gpu: bool):
    """(BM, BN, SINGLE, num_warps) for an O x M x N problem."""
    if gpu:
        if row_mode:
            if N <= 32768:
                bn = _pow2(N)
                bm = max(1, min(_pow2(M), 4096 // bn))
                return bm, bn, True, min(16, max(4, bm * bn // 1024))
            return 1, 4096, False, 8
        # Columns: keep at least 16 contiguous rows per load, but enough programs for the GPU.
        bm = min(_pow2(M), 64)
        while bm > 16 and triton.cdiv(M, bm) * O < 264:
            bm //= 2
        if _pow2(N) * bm <= 16384:
            bn = _pow2(N)
            return bm, bn, True, min(16, max(4, bm * bn // 1024))
        return bm, max(1, 4096 // bm), False, 8
    # CPU interpreter: each program instance costs a Python-level pass, so use few, big tiles.
    cap = 65536
    if row_mode:
        bn = min(_pow2(N), cap)
        bm = max(1, min(_pow2(M), cap // bn))
    else:
        bm = min(_pow2(M), 256)
        bn = min(_pow2(N), max(1, cap // bm))
    return bm, bn, N <= bn, 4


def softmax_int(self: torch.Tensor, dim: int, dtype: torch.dtype | None = None) -> torch.Tensor:
    out_dtype = self.dtype if dtype is None else dtype
    x = self
    nd = max(x.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"dim {dim} out of range for a tensor of {x.dim()} dimensions")
    dim %= nd
    # Dense inputs keep their strides in the output; other layouts get a contiguous output.
    out = torch.empty_like(x, dtype=out_dtype)
    if out.numel() == 0:
        return out
    xv, ov = (x.reshape(1), out.reshape(1)) if x.dim() == 0 else (x, out)
    groups = _groups(xv, ov, dim)
    if groups is None:
        xv = xv.contiguous()
        ov = out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
        groups = _groups(xv, ov, dim)
    (O, xo, oo), (M, xm, om) = groups
    N, xn, on = xv.shape[dim], xv.stride(dim), ov.stride(dim)
    row_mode = not (xm == 1 and xn != 1)
    bm, bn, single, warps = _tiles(M, O, N, row_mode, x.device.type != "cpu")
    m_blocks = triton.cdiv(M, bm)
    _softmax_kernel[(m_blocks * O,)](xv, ov, M, N, m_blocks, xo, xm, xn, oo, om, on,
                          BM=bm, BN=bn, SINGLE=single, num_warps=warps)
    return out
