"""Shipped solution for aten::diff: the n-th forward difference in one pass.

The sequence differenced along `dim` is z = prepend ++ self ++ append, never materialised: the
kernel maps each position of z to the tensor holding it (three masked loads, each read through
that tensor's own strides). The n-th difference is expanded with binomial coefficients,
out[i] = sum_k (-1)^(n-k) C(n, k) z[i + k], unrolled at compile time for n <= 8 and computed
in float32 (float64 for float64, int64 for integers, which wraps like the repeated int32
differences; bool uses the parity of C(n, k), i.e. repeated xor). Larger n runs single
differences n times through a float32/int64 buffer.

Each tensor is addressed as (before, j, after): the dims before `dim` and the dims after it each
merge into one stride group (a tensor whose dims do not merge is copied first, which the usual
layouts never need). A program owns a tile of [rows x positions along dim]; the tile is wide
across rows when `dim` is not the innermost dim, long along `dim` otherwise, so loads and
stores stay coalesced.
"""

import math

import torch
import triton
import triton.language as tl


@triton.constexpr_function
def _coef(n, k):
    """(-1)^(n-k) C(n, k): the weight of z[i + k] in the n-th forward difference."""
    return math.comb(n, k) * (-1) ** (n - k)


@triton.jit
def _load_z(pre_ptr, x_ptr, app_ptr, pre_row, x_row, app_row, z, Lp, Lx, pre_s, x_s, app_s,
            ok, HAS_PRE: tl.constexpr, HAS_APP: tl.constexpr, CT: tl.constexpr):
    zx = z - Lp
    v = tl.load(x_ptr + (x_row + zx * x_s), mask=ok & (zx >= 0) & (zx < Lx), other=0).to(CT)
    if HAS_PRE:
        vp = tl.load(pre_ptr + (pre_row + z * pre_s), mask=ok & (z < Lp), other=0).to(CT)
        v = tl.where(z < Lp, vp, v)
    if HAS_APP:
        za = zx - Lx
        va = tl.load(app_ptr + (app_row + za * app_s), mask=ok & (za >= 0), other=0).to(CT)
        v = tl.where(za >= 0, va, v)
    return v


@triton.jit
def _diff_kernel(pre_ptr, x_ptr, app_ptr, out_ptr, R, A, L_out, Lp, Lx,
                 pre_b, pre_a, pre_s, x_b, x_a, x_s, app_b, app_a, app_s,
                 n_jblk, N: tl.constexpr, HAS_PRE: tl.constexpr, HAS_APP: tl.constexpr,
                 CT: tl.constexpr, PARITY: tl.constexpr, BR: tl.constexpr, BJ: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_jblk
    pid_j = pid - pid_r * n_jblk
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    js = pid_j.to(tl.int64) * BJ + tl.arange(0, BJ)
    b = rows // A
    a = rows - b * A
    ok = (rows < R)[:, None] & (js < L_out)[None, :]
    pre_row = (b * pre_b + a * pre_a)[:, None]
    x_row = (b * x_b + a * x_a)[:, None]
    app_row = (b * app_b + a * app_a)[:, None]
    acc = tl.zeros([BR, BJ], CT)
    for k in tl.static_range(N + 1):
        v = _load_z(pre_ptr, x_ptr, app_ptr, pre_row, x_row, app_row, js[None, :] + k, Lp, Lx,
                    pre_s, x_s, app_s, ok, HAS_PRE, HAS_APP, CT)
        c = _coef(N, k)
        if PARITY:
            if c % 2 != 0:
                acc += v
        else:
            acc += c * v
    if PARITY:
        acc = acc % 2
    # The result is contiguous (before, L_out, after).
    o_off = (b * L_out * A + a)[:, None] + js[None, :] * A
    tl.store(out_ptr + o_off, acc.to(out_ptr.dtype.element_ty), mask=ok)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


_MAX_UNROLL = 8


def _one_group(t, dims):
    """(size, stride) of `dims` of t merged into one group, or None when they do not merge."""
    size, stride = 1, 0
    for d in dims:
        if t.shape[d] == 1:
            continue
        if size == 1:
            size, stride = t.shape[d], t.stride(d)
        elif stride == t.shape[d] * t.stride(d):
            size, stride = size * t.shape[d], t.stride(d)
        else:
            return None
    return size, stride


def _addressing(t, dim):
    """(t or a contiguous copy, before stride, after stride, stride along dim)."""
    before, after = list(range(dim)), list(range(dim + 1, t.dim()))
    gb, ga = _one_group(t, before), _one_group(t, after)
    if gb is None or ga is None:
        t = t.contiguous()
        gb, ga = _one_group(t, before), _one_group(t, after)
    return t, gb[1], ga[1], t.stride(dim)


def _kernel_view(t):
    return t.view(torch.uint8) if t.dtype == torch.bool else t


def _launch(x, pre, app, n, dim, res, gpu):
    """res (contiguous) = n-th difference (n <= _MAX_UNROLL) of pre ++ x ++ app along dim."""
    B = 1
    for d in range(dim):
        B *= x.shape[d]
    A = 1
    for d in range(dim + 1, x.dim()):
        A *= x.shape[d]
    R = A * B
    L_out = res.shape[dim]
    if res.numel() == 0:
        return
    x, x_b, x_a, x_s = _addressing(x, dim)
    Lx = x.shape[dim]
    Lp = pre.shape[dim] if pre is not None else 0
    if pre is not None:
        pre, pre_b, pre_a, pre_s = _addressing(pre, dim)
    else:
        pre, pre_b, pre_a, pre_s = x, 0, 0, 0
    if app is not None:
        app, app_b, app_a, app_s = _addressing(app, dim)
    else:
        app, app_b, app_a, app_s = x, 0, 0, 0
    out_dtype = res.dtype
    parity = out_dtype == torch.bool
    if parity or not out_dtype.is_floating_point:
        ct = tl.int64
    else:
        ct = tl.float64 if out_dtype == torch.float64 else tl.float32
    # Rows (other dims) are the contiguous direction unless dim is the innermost dim.
    tile = 4096 if gpu else 65536
    if A > 1:
        br = min(_pow2(R), 256 if gpu else tile)
        bj = min(_pow2(L_out), max(1, tile // br))
    else:
        bj = min(_pow2(L_out), 2048 if gpu else tile)
        br = min(_pow2(R), max(1, tile // bj))
    n_jblk = triton.cdiv(L_out, bj)
    _diff_kernel[(triton.cdiv(R, br) * n_jblk,)](
        _kernel_view(pre), _kernel_view(x), _kernel_view(app), _kernel_view(res), R, A, L_out,
        Lp, Lx, pre_b, pre_a, pre_s, x_b, x_a, x_s, app_b, app_a, app_s, n_jblk,
        N=n, HAS_PRE=pre is not x, HAS_APP=app is not x, CT=ct, PARITY=parity, BR=br, BJ=bj,
        num_warps=8 if br * bj >= 4096 else 4)


def _diff_into(self, n, dim, prepend, append, out):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError("order must be non-negative but got " + str(n))
    if not -nd <= dim < nd:
        raise IndexError(f"diff(): dim {dim} out of range for a tensor of {nd} dimensions")
    dim %= nd
    dtype = self.dtype
    extra = [t for t in (prepend, append) if t is not None]
    for t in extra:
        if t.dim() != nd or any(t.shape[d] != self.shape[d] for d in range(nd) if d != dim):
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input and to match its shape except along dim")
        dtype = torch.promote_types(dtype, t.dtype)
    if n == 0:
        # torch returns the input itself for n = 0 (prepend and append are ignored).
        prepend = append = None
        dtype = self.dtype
    length = self.shape[dim] + sum(t.shape[dim] for t in extra if n)
    shape = list(self.shape)
    shape[dim] = max(length - n, 0)
    if out is None:
        out = torch.empty(shape, dtype=dtype, device=self.device)
    elif list(out.shape) != shape:
        raise RuntimeError(f"diff(): out has shape {list(out.shape)}, expected {shape}")
    if out.numel() == 0:
        return out
    gpu = self.device.type != "cpu"
    res = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    if n <= _MAX_UNROLL:
        _launch(self, prepend, append, n, dim, res, gpu)
    else:
        # Repeated first differences through a wide buffer, the last one into the result.
        wide = (torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype)
        cur, pre, app = self, prepend, append
        for step in range(n, 0, -_MAX_UNROLL):
            k = min(step, _MAX_UNROLL)
            s = list(cur.shape)
            s[dim] = cur.shape[dim] + sum(t.shape[dim] for t in (pre, app) if t is not None) - k
            nxt = res if step == k else torch.empty(s, dtype=wide, device=self.device)
            _launch(cur, pre, app, k, dim, nxt, gpu)
            cur, pre, app = nxt, None, None
    if res is not out:
        out.copy_(res)
    return out


def diff(self: torch.Tensor, n: int = 1, dim: int = -1, prepend: torch.Tensor | None = None,
         append: torch.Tensor | None = None) -> torch.Tensor:
    return _diff_into(self, n, dim, prepend, append, None)


def diff_out(self: torch.Tensor, n: int = 1, dim: int = -1,
             prepend: torch.Tensor | None = None, append: torch.Tensor | None = None, *,
             out: torch.Tensor) -> torch.Tensor:
    return _diff_into(self, n, dim, prepend, append, out)
