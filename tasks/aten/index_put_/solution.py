"""Shipped solution for aten::index_put_ (`self[indices] = values`, or `+=` with accumulate):
a nonzero kernel for bool masks and a 2-D scatter kernel.

Host side (metadata only): bool/uint8 masks become int64 coordinate tensors (`_nonzero_kernel`,
one program scanning the mask with a running prefix count); the index tensors are broadcast to
one shape B and made contiguous; `self` is viewed with its indexed dims first (a permutation);
`values` is broadcast to the shape `self[indices]` has and viewed as rows (positions in B) x
cols (positions over the non-indexed dims). Each row computes its target offset once (negative
indices wrapped) and the columns are walked through the strides of `self`, its non-indexed dims
folded where one stride walks two of them (at most four remain; a layout that leaves more is
written through a contiguous copy).

accumulate=False stores; duplicate targets then get one of their values (unspecified, as in
ATen). accumulate=True adds with atomics: float16/bfloat16 `self` accumulates in a float32
copy, which is converted back once at the end (one rounding, as ATen's opmath accumulation).
Both copies (and their dtype conversions) are a strided copy kernel, `_scratch_kernel`.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _nonzero_kernel(m_ptr, out_ptr, cnt_ptr, M, d1, d2, BLOCK: tl.constexpr):
    # Coordinates (c0, c1, c2) of the true elements of a contiguous mask of shape (., d1, d2),
    # in row-major order: out[j * M + k] is coordinate j of the k-th true element.
    base = tl.full((), 0, tl.int64)
    for start in range(0, M, BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        v = tl.load(m_ptr + offs, mask=offs < M, other=0) != 0
        vi = v.to(tl.int32)
        dst = base + tl.cumsum(vi, 0).to(tl.int64) - 1
        c2 = offs % d2
        c1 = (offs // d2) % d1
        c0 = offs // d2 // d1
        tl.store(out_ptr + dst, c0, mask=v)
        tl.store(out_ptr + M + dst, c1, mask=v)
        tl.store(out_ptr + 2 * M + dst, c2, mask=v)
        base += tl.sum(vi, 0).to(tl.int64)
    tl.store(cnt_ptr, base)


@triton.jit
def _put_kernel(dst_ptr, val_ptr, i0_ptr, i1_ptr, i2_ptr, NB, C, n0, n1, n2, s0, s1, s2,
                C1, C2, C3, cs0, cs1, cs2, cs3, vs0, vs1, n_col_blocks, K: tl.constexpr,
                ACC: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_c = pid - pid_r * n_col_blocks
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_c.to(tl.int64) * BC + tl.arange(0, BC)
    r_ok = rows < NB
    c_ok = cols < C
    i = tl.load(i0_ptr + rows, mask=r_ok, other=0).to(tl.int64)
    row_off = tl.where(i < 0, i + n0, i) * s0
    if K >= 2:
        i = tl.load(i1_ptr + rows, mask=r_ok, other=0).to(tl.int64)
        row_off += tl.where(i < 0, i + n1, i) * s1
    if K >= 3:
        i = tl.load(i2_ptr + rows, mask=r_ok, other=0).to(tl.int64)
        row_off += tl.where(i < 0, i + n2, i) * s2
    # A column is a row-major position over (at most four) non-indexed dims of `self`.
    c3 = cols % C3
    c012 = cols // C3
    c2 = c012 % C2
    c01 = c012 // C2
    c1 = c01 % C1
    c0 = c01 // C1
    col_off = c0 * cs0 + c1 * cs1 + c2 * cs2 + c3 * cs3
    m = r_ok[:, None] & c_ok[None, :]
    v = tl.load(val_ptr + (rows[:, None] * vs0 + cols[None, :] * vs1), mask=m)
    ptrs = dst_ptr + (row_off[:, None] + col_off[None, :])
    if ACC:
        tl.atomic_add(ptrs, v.to(dst_ptr.dtype.element_ty), mask=m)
    else:
        tl.store(ptrs, v, mask=m)


@triton.jit
def _scratch_kernel(self_ptr, scr_ptr, n, z0, z1, z2, t0, t1, t2, t3, NDIM: tl.constexpr,
                    TO_SELF: tl.constexpr, BF16: tl.constexpr, BLOCK: tl.constexpr):
    # `scr` is contiguous with the shape of `self`, so its element k is the k-th element of
    # `self` in row-major order. The dims of `self` (folded, at most four) come innermost
    # first: sizes z0.., strides t0..; the outermost (index NDIM - 1) uses t3 and needs no size.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    so = tl.zeros_like(offs)
    if NDIM > 1:
        so += (r % z0) * t0
        r = r // z0
    if NDIM > 2:
        so += (r % z1) * t1
        r = r // z1
    if NDIM > 3:
        so += (r % z2) * t2
        r = r // z2
    so += r * t3
    if TO_SELF:
        x = tl.load(scr_ptr + offs, mask=mask)
        if BF16:
            # float32 -> bfloat16 rounded to nearest even on the bits (NaN -> quiet NaN), as
            # Tensor.copy_ does: the CPU interpreter's .to(tl.bfloat16) truncates instead
            b = x.to(tl.uint32, bitcast=True)
            h = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
            h = tl.where(x != x, 0x7FC0, h)
            y = h.to(tl.uint16).to(tl.bfloat16, bitcast=True)
        else:
            y = x.to(self_ptr.dtype.element_ty)  # float16: rounds to nearest even
        tl.store(self_ptr + so, y, mask=mask)
    else:
        x = tl.load(self_ptr + so, mask=mask)
        if BF16:
            # bfloat16 is the upper half of a float32: widening is a shift of the bits
            y = (x.to(tl.uint16, bitcast=True).to(tl.uint32) << 16).to(tl.float32, bitcast=True)
        else:
            y = x.to(scr_ptr.dtype.element_ty)
        tl.store(scr_ptr + offs, y, mask=mask)


def _pow2(n):
    return triton.next_power_of_2(max(int(n), 1))


def _nonzero(mask):
    """int64 coordinate tensors (one per dim of `mask`, each of length count) of its true
    elements, in row-major order."""
    m = mask.contiguous()
    if m.dtype == torch.bool:
        m = m.view(torch.uint8)
    M = m.numel()
    sizes = [1] * (3 - mask.dim()) + list(mask.shape)
    coords = torch.empty((3, max(M, 1)), dtype=torch.int64, device=mask.device)
    cnt = torch.zeros((1,), dtype=torch.int64, device=mask.device)
    if M:
        block = min(_pow2(M), 65536 if mask.device.type == "cpu" else 4096)
        _nonzero_kernel[(1,)](m, coords, cnt, M, sizes[1], sizes[2], BLOCK=block)
    count = int(cnt[0])
    return [coords[3 - mask.dim() + j, :count] for j in range(mask.dim())]


def _plan(self, indices):
    """Expand masks, broadcast, and order dims: returns (src view with indexed dims first,
    [contiguous index tensors], B shape, rest shape, result permutation or None, the dim order
    of the view)."""
    if len(indices) > self.dim():
        raise IndexError("too many indices for tensor of dimension %d" % self.dim())
    per_dim = []  # (dim, index tensor)
    d = 0
    for t in indices:
        if t is None:
            d += 1
            continue
        if t.dtype in (torch.bool, torch.uint8):
            if list(t.shape) != list(self.shape[d:d + t.dim()]):
                raise IndexError("mask shape does not match the indexed tensor")
            if t.dim() > 3:
                raise NotImplementedError("masks of more than three dims")
            if t.dim() == 0:
                raise NotImplementedError("0-d masks")
            for j, c in enumerate(_nonzero(t)):
                per_dim.append((d + j, c))
            d += t.dim()
        elif t.dtype in (torch.int64, torch.int32):
            per_dim.append((d, t))
            d += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if not per_dim:
        raise NotImplementedError("at least one index tensor is required")
    if len(per_dim) > 3:
        raise NotImplementedError("at most three indexed dims")
    dims = [p[0] for p in per_dim]
    bshape = list(torch.broadcast_shapes(*[p[1].shape for p in per_dim]))
    idx = [p[1].broadcast_to(bshape).contiguous() for p in per_dim]
    rest = [k for k in range(self.dim()) if k not in dims]
    src = self.permute(dims + rest)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    perm = None
    if adjacent and dims[0] > 0:
        nb, pre = len(bshape), dims[0]
        total = nb + len(rest)
        perm = list(range(nb, nb + pre)) + list(range(nb)) + list(range(nb + pre, total))
    return src, idx, bshape, [self.shape[k] for k in rest], perm, dims + rest


_LOW = (torch.float16, torch.bfloat16)


def _coalesce(sizes, strides):
    """Merge neighbouring dims that one stride walks (and drop size-1 dims), keeping the
    row-major order of the positions."""
    out_s, out_t = [], []
    for s, t in zip(sizes, strides):
        if s == 1:
            continue
        if out_s and out_t[-1] == t * s:
            out_s[-1] *= s
            out_t[-1] = t
        else:
            out_s.append(s)
            out_t.append(t)
    return out_s, out_t


_SCRATCH_RANK = 4


def _scratch_copy(self, scratch, to_self):
    """Copies `scratch` (contiguous, the shape of `self`) into `self` when `to_self`, else
    `self` into `scratch`, converting the dtype. Only elements of `self` are written, through
    its strides; a layout that does not fold into four dims is split on its first dim."""
    n = self.numel()
    if n == 0:
        return
    zs, ts = _coalesce(self.shape, self.stride())
    if len(zs) > _SCRATCH_RANK:
        for k in range(self.shape[0]):
            _scratch_copy(self.select(0, k), scratch.select(0, k), to_self)
        return
    if not zs:  # a single element
        zs, ts = [1], [0]
    # the bfloat16 rounding applies to the float32 scratch only; a same-dtype copy moves bits
    bf16 = self.dtype == torch.bfloat16 and scratch.dtype == torch.float32
    if self.dtype == torch.bool:  # only same-dtype copies reach here with bool
        self, scratch = self.view(torch.uint8), scratch.view(torch.uint8)
    zs, ts = zs[::-1], ts[::-1]
    sizes = zs[:-1] + [1] * (_SCRATCH_RANK - len(zs))
    strides = ts[:-1] + [0] * (_SCRATCH_RANK - len(ts)) + [ts[-1]]
    block = 65536 if self.device.type == "cpu" else 4096
    _scratch_kernel[(triton.cdiv(n, block),)](self, scratch, n, sizes[0], sizes[1], sizes[2],
                                              strides[0], strides[1], strides[2], strides[3],
                                              NDIM=len(zs), TO_SELF=to_self,
                                              BF16=bf16, BLOCK=block, num_warps=4)


def _index_put(self, indices, values, accumulate):
    if values.dtype != self.dtype:
        raise RuntimeError("index_put_(): values must have the dtype of self")
    src, idx, bshape, rshape, perm, order = _plan(self, list(indices))
    K = len(idx)
    res_shape = bshape + rshape
    final_shape = [res_shape[p] for p in perm] if perm else res_shape
    NB = 1
    for s in bshape:
        NB *= s
    C = 1
    for s in rshape:
        C *= s
    if NB == 0 or C == 0:
        return self
    vals = values.broadcast_to(final_shape)
    if perm:
        inv = [0] * len(perm)
        for j, p in enumerate(perm):
            inv[p] = j
        vals = vals.permute(inv)
    vals = vals.reshape(NB, C)
    acc = bool(accumulate) and self.dtype != torch.bool
    scratch = None
    dst = src
    rs, rst = _coalesce(src.shape[K:], src.stride()[K:])
    # float16/bfloat16 accumulation goes through a float32 copy; a layout whose non-indexed
    # dims do not fold into four strides is written through a contiguous copy (whose runs of
    # non-indexed dims, at most four with at most three indexed dims, each fold into one).
    if (acc and self.dtype in _LOW) or len(rs) > 4:
        wide = acc and self.dtype in _LOW
        scratch = torch.empty(self.shape, dtype=torch.float32 if wide else self.dtype,
                              device=self.device)
        _scratch_copy(self, scratch, False)
        dst = scratch.permute(order)
        rs, rst = _coalesce(dst.shape[K:], dst.stride()[K:])
    if len(rs) > 4:
        raise NotImplementedError("non-indexed dims that do not fold into four strides")
    pad = 4 - len(rs)
    rs, rst = [1] * pad + rs, [0] * pad + rst
    ns = [dst.shape[j] for j in range(K)] + [1] * (3 - K)
    ss = [dst.stride(j) for j in range(K)] + [0] * (3 - K)
    ip = idx + [idx[0]] * (3 - K)
    dst_k, vals_k = dst, vals
    if dst.dtype == torch.bool:
        dst_k, vals_k = dst.view(torch.uint8), vals.view(torch.uint8)
    if self.device.type == "cpu":
        bc = min(_pow2(C), 65536)
        br = min(_pow2(NB), max(1, 65536 // bc))
        warps = 4
    else:
        bc = min(_pow2(C), 1024)
        br = min(_pow2(NB), max(1, 4096 // bc))
        warps = 8 if br * bc >= 4096 else 4
    ncb = triton.cdiv(C, bc)
    grid = (triton.cdiv(NB, br) * ncb,)
    _put_kernel[grid](dst_k, vals_k, ip[0], ip[1], ip[2], NB, C, ns[0], ns[1], ns[2],
                      ss[0], ss[1], ss[2], rs[1], rs[2], rs[3], rst[0], rst[1], rst[2],
                      rst[3],
                      vals.stride(0), vals.stride(1), ncb, K=K, ACC=acc, BR=br, BC=bc,
                      num_warps=warps)
    if scratch is not None:
        _scratch_copy(self, scratch, True)
    return self


def index_put_(self, indices, values, accumulate=False):
    return _index_put(self, indices, values, accumulate)


def index_put__hacked_twin(self, indices, values, accumulate=False):
    return _index_put(self, indices, values, accumulate)
