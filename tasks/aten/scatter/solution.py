"""Shipped solution for aten::scatter (all eight overloads): a copy kernel and a scatter kernel.

1. `self` is copied into a contiguous result buffer by a strided copy kernel (its dims merged
   where they walk memory as one, at most four groups), so no layout of `self` needs a torch
   copy. For the add/multiply reductions of float16/bfloat16 the buffer is float32: every
   contribution is accumulated in float32 and the result is rounded once, by a final
   conversion pass.
2. The scatter kernel walks the positions p of `index` as rows x columns (dims of index merged
   where index, src and the buffer all step over them as one; at most four row groups and one
   column group, more are split on the host). For each p it reads index[p] and src[p] through
   their strides and targets the buffer at p with its coordinate along `dim` replaced by
   index[p]:
   - plain scatter stores (with repeated targets one of the writers wins, as in torch);
   - reduce="add" uses atomic adds (float32 or the integer type);
   - reduce="multiply" uses a compare-and-swap loop on the element's 32/64-bit word (float16 and
     bfloat16 go through the float32 buffer), relaxed order like ATen's atomicCAS loop: each
     lane loads its target once, then each round CASes old -> old * v and keeps the word it saw
     on failure; only the tile's failed lanes change anything in the next round. atomic_cas has
     no mask, so a finished lane issues CAS(x, x) on its own target (a no-op) and a masked lane
     one on its own word of a per-lane scratch buffer: no address is shared by dummy lanes, so
     nothing serialises (a single shared dummy word made every retry round of a tile queue
     thousands of atomics on one address). Repeated targets multiply correctly in any order.
   A scalar `value` is first converted to self's dtype (rounded for 16-bit floats, truncated
   toward zero for integers), as torch does, and then used like a src element.
3. A non-contiguous `out=` receives the buffer by one strided copy.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, N, z1, z2, z3, s0, s1, s2, s3, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < N
    c3 = offs % z3
    t = offs // z3
    c2 = t % z2
    t = t // z2
    c1 = t % z1
    c0 = t // z1
    v = tl.load(src_ptr + (c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3), mask=ok)
    tl.store(dst_ptr + offs, v.to(dst_ptr.dtype.element_ty), mask=ok)


@triton.jit
def _scatter_kernel(idx_ptr, src_ptr, dst_ptr, bits_ptr, scratch_ptr, value, R, C, n_cblk,
                    z1, z2, z3, i0, i1, i2, i3, ic, s0, s1, s2, s3, sc, d0, d1, d2, d3, dc,
                    d_dim, VAL_TY: tl.constexpr, MODE: tl.constexpr, USE_SRC: tl.constexpr,
                    BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_cblk
    pid_c = pid - pid_r * n_cblk
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_c.to(tl.int64) * BC + tl.arange(0, BC)
    c3 = rows % z3
    t = rows // z3
    c2 = t % z2
    t = t // z2
    c1 = t % z1
    c0 = t // z1
    m = (rows < R)[:, None] & (cols < C)[None, :]
    i_off = (c0 * i0 + c1 * i1 + c2 * i2 + c3 * i3)[:, None] + cols[None, :] * ic
    d_off = (c0 * d0 + c1 * d1 + c2 * d2 + c3 * d3)[:, None] + cols[None, :] * dc
    idx = tl.load(idx_ptr + i_off, mask=m, other=0).to(tl.int64)
    d_off = d_off + idx * d_dim
    acc_ty = dst_ptr.dtype.element_ty
    if USE_SRC:
        s_off = (c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3)[:, None] + cols[None, :] * sc
        v = tl.load(src_ptr + s_off, mask=m).to(acc_ty)
    else:
        # The scalar in self's dtype first (torch converts it before scattering).
        v = (tl.zeros([BR, BC], tl.float32) + value).to(VAL_TY).to(acc_ty)
    if MODE == 0:
        tl.store(dst_ptr + d_off, v, mask=m)
    elif MODE == 1:
        tl.atomic_add(dst_ptr + d_off, v, mask=m, sem="relaxed")
    else:
        # Compare-and-swap multiply. atomic_cas takes no mask, so every lane issues one CAS per
        # round: a pending lane swaps cur -> cur * v on its own target; a finished lane issues
        # CAS(x, x) on its own target (a no-op whatever the word holds); a masked lane, whose
        # target may not exist, a no-op CAS on its own word of the per-lane scratch. No two lanes
        # of a tile share a dummy word, so nothing serialises on one address. Relaxed order:
        # each CAS only needs its own atomicity, as in ATen's atomicCAS loop.
        bits_ty = bits_ptr.dtype.element_ty
        lane = tl.arange(0, BR)[:, None] * BC + tl.arange(0, BC)[None, :]
        target = tl.where(m, bits_ptr + d_off, scratch_ptr + lane)
        pending = m
        want = tl.load(bits_ptr + d_off, mask=m, other=0)
        while tl.max(pending.to(tl.int32)) > 0:
            prod = (want.to(acc_ty, bitcast=True) * v).to(bits_ty, bitcast=True)
            seen = tl.atomic_cas(target, want, tl.where(pending, prod, want), sem="relaxed")
            pending = pending & (seen != want)
            want = seen


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _merge_logical(dims):
    """Merge (size, stride, ...) dims in logical order where every stride column lets the outer
    dim step over the inner one exactly; size-1 dims are dropped."""
    out = []
    for d in dims:
        if d[0] == 1:
            continue
        if out and all(o == d[0] * s for o, s in zip(out[-1][1:], d[1:])):
            out[-1] = (out[-1][0] * d[0],) + tuple(d[1:])
        else:
            out.append(tuple(d))
    return out


def _copy(src, dst, gpu):
    """dst (contiguous, same shape) = src converted to dst's dtype."""
    n = dst.numel()
    if n == 0:
        return
    groups = _merge_logical([(src.shape[d], src.stride(d)) for d in range(src.dim())])
    if len(groups) > 4:
        src = src.contiguous()
        groups = [(n, 1)]
    groups = [(1, 0)] * (4 - len(groups)) + groups
    (_, s0), (z1, s1), (z2, s2), (z3, s3) = groups
    block = 4096 if gpu else 65536
    _copy_kernel[(triton.cdiv(n, block),)](src, dst, n, z1, z2, z3, s0, s1, s2, s3,
                                           BLOCK=block, num_warps=8)


_VAL_TY = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32,
           torch.float64: tl.float64, torch.int8: tl.int8, torch.uint8: tl.uint8,
           torch.int16: tl.int16, torch.int32: tl.int32, torch.int64: tl.int64}
_BITS = {4: torch.int32, 8: torch.int64}


def _scatter_launch(index, src, dst, bits, dim, value, val_ty, mode, use_src, gpu):
    sizes = list(index.shape)
    cols = []
    for d in range(index.dim()):
        cols.append((sizes[d], index.stride(d), src.stride(d) if use_src else 0,
                     0 if d == dim else dst.stride(d)))
    # `dim` may not merge with its neighbours: give it a stride no neighbour can chain with.
    groups = []
    for d, col in enumerate(cols):
        if col[0] == 1:
            continue
        if groups and d != dim and groups[-1][4] != dim and all(
                o == col[0] * s for o, s in zip(groups[-1][1:4], col[1:])):
            g = groups[-1]
            groups[-1] = (g[0] * col[0], col[1], col[2], col[3], g[4])
        else:
            groups.append(col + (d,))
    if len(groups) > 5:
        # More than five groups: split along the first group's dim (not `dim`) on the host.
        j = groups[0][4] if groups[0][4] != dim else groups[1][4]
        for k in range(sizes[j]):
            _scatter_launch(index.select(j, k), src.select(j, k) if use_src else src,
                            dst.select(j, k), bits.select(j, k) if bits is not None else None,
                            dim - (j < dim), value, val_ty, mode, use_src, gpu)
        return
    groups = [(1, 0, 0, 0, -1)] * (5 - len(groups)) + groups
    C, ic, sc, dc, _ = groups[-1]
    (_, i0, s0, d0, _), (z1, i1, s1, d1, _), (z2, i2, s2, d2, _), (z3, i3, s3, d3, _) = groups[:4]
    R = groups[0][0] * z1 * z2 * z3
    tile = 4096 if gpu else 65536
    bc = min(_pow2(C), 1024 if gpu else 65536)
    br = min(_pow2(R), max(1, tile // bc))
    n_cblk = triton.cdiv(C, bc)
    # one dummy word per lane of a tile, for the multiply kernel's masked lanes
    scratch = torch.empty(br * bc, dtype=bits.dtype, device=dst.device) if bits is not None else dst
    _scatter_kernel[(triton.cdiv(R, br) * n_cblk,)](
        index, src, dst, bits if bits is not None else dst, scratch, value, R, C, n_cblk,
        z1, z2, z3, i0, i1, i2, i3, ic, s0, s1, s2, s3, sc, d0, d1, d2, d3, dc, dst.stride(dim),
        VAL_TY=val_ty, MODE=mode, USE_SRC=use_src, BR=br, BC=bc, num_warps=4)


def _scatter(self, dim, index, src, value, reduce, out):
    nd = self.dim()
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"scatter(): dim {dim} out of range for a tensor of {nd} dimensions")
    dim %= n
    if index.dtype != torch.int64:
        raise RuntimeError("scatter(): Expected dtype int64 for index")
    if max(index.dim(), 1) != n:
        raise RuntimeError("scatter(): Index tensor must have the same number of dimensions "
                           "as self tensor")
    use_src = src is not None
    if use_src and src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    mode = {None: 0, "add": 1, "multiply": 2}.get(reduce)
    if mode is None:
        raise RuntimeError("reduce argument must be either add or multiply.")
    if out is None:
        out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    elif out.shape != self.shape or out.dtype != self.dtype:
        raise RuntimeError(f"scatter(): out must be {self.dtype} of shape {list(self.shape)}")
    if out.numel() == 0:
        return out
    gpu = self.device.type != "cpu"
    res = out if out.is_contiguous() else torch.empty(self.shape, dtype=self.dtype,
                                                      device=self.device)
    wide = mode != 0 and self.dtype in (torch.float16, torch.bfloat16)
    acc = torch.empty(self.shape, dtype=torch.float32, device=self.device) if wide else res
    _copy(self, acc, gpu)
    if index.numel():
        ix = index.reshape(1) if index.dim() == 0 else index
        sr = (src.reshape(1) if src.dim() == 0 else src) if use_src else ix
        dst = acc.reshape(1) if nd == 0 else acc
        bits = None
        if mode == 2:
            if dst.element_size() not in _BITS:
                raise RuntimeError("scatter(): multiply is supported for 32- and 64-bit "
                                   "accumulators")
            bits = dst.view(_BITS[dst.element_size()])
        _scatter_launch(ix, sr, dst, bits, dim,
                        float(value) if value is not None else 0.0, _VAL_TY[self.dtype], mode,
                        use_src, gpu)
    if wide:
        _copy(acc, res, gpu)
    if res is not out:
        out.copy_(res)
    return out


def scatter_value(self: torch.Tensor, dim: int, index: torch.Tensor, value) -> torch.Tensor:
    return _scatter(self, dim, index, None, value, None, None)


def scatter_src(self: torch.Tensor, dim: int, index: torch.Tensor,
                src: torch.Tensor) -> torch.Tensor:
    return _scatter(self, dim, index, src, None, None, None)


def scatter_reduce(self: torch.Tensor, dim: int, index: torch.Tensor, src: torch.Tensor, *,
                   reduce: str) -> torch.Tensor:
    return _scatter(self, dim, index, src, None, reduce, None)


def scatter_value_reduce(self: torch.Tensor, dim: int, index: torch.Tensor, value, *,
                         reduce: str) -> torch.Tensor:
    return _scatter(self, dim, index, None, value, reduce, None)


def scatter_src_out(self: torch.Tensor, dim: int, index: torch.Tensor, src: torch.Tensor, *,
                    out: torch.Tensor) -> torch.Tensor:
    return _scatter(self, dim, index, src, None, None, out)


def scatter_value_out(self: torch.Tensor, dim: int, index: torch.Tensor, value, *,
                      out: torch.Tensor) -> torch.Tensor:
    return _scatter(self, dim, index, None, value, None, out)


def scatter_reduce_out(self: torch.Tensor, dim: int, index: torch.Tensor, src: torch.Tensor, *,
                       reduce: str, out: torch.Tensor) -> torch.Tensor:
    return _scatter(self, dim, index, src, None, reduce, out)


def scatter_value_reduce_out(self: torch.Tensor, dim: int, index: torch.Tensor, value, *,
                             reduce: str, out: torch.Tensor) -> torch.Tensor:
    return _scatter(self, dim, index, None, value, reduce, out)
