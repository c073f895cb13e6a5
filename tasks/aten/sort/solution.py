"""Shipped solution for aten::sort: a bitonic sorting network on (key, index) pairs, one row of
the sorted dimension per tile row.

Every element becomes an int64 key whose signed order is the order sort must produce: floats
through their bit pattern (negative values with the magnitude bits flipped, -0 folded onto +0,
every NaN onto the largest key, so NaN sorts after +inf), integers and bool as they are;
descending sorts use the bitwise complement of the key. Ties are broken by the original
position, so the result is the stable order whatever `stable` says (a valid answer for
stable=False too). Positions past the row length are padded with the largest key and positions
that sort after every real element. The values are then gathered from `self` at the sorted
positions (exact copies, NaN payloads included), so no key is ever decoded.

A row is sorted in one tile of next_power_of_2(n) elements (at least 2); the rows of the tile
are independent. Dims other than `dim` (at most three) are walked through their strides, for
the input and both outputs alike, so non-contiguous inputs and outputs are neither copied nor
staged; a tensor of more than four dims is sorted as a contiguous copy and copied back.
"""

import torch
import triton
import triton.language as tl

_MAX_BLOCK = 1 << 16


@triton.jit
def _bitonic_step(k, i, ROWS: tl.constexpr, BLOCK: tl.constexpr, STAGE: tl.constexpr,
                  J: tl.constexpr):
    # Compare-exchange the elements 2**J apart inside blocks of 2**(J+1); a pair sorts upward
    # when its position's bit STAGE is 0 and downward otherwise.
    A: tl.constexpr = BLOCK // (2 << J)
    B: tl.constexpr = 1 << J
    k4 = tl.permute(tl.reshape(k, (ROWS, A, 2, B)), (0, 1, 3, 2))
    i4 = tl.permute(tl.reshape(i, (ROWS, A, 2, B)), (0, 1, 3, 2))
    kl, kr = tl.split(k4)
    il, ir = tl.split(i4)
    a = tl.arange(0, A)[None, :, None]
    down = ((a >> (STAGE - J - 1)) & 1) == 1
    greater = (kl > kr) | ((kl == kr) & (il > ir))
    swap = greater != down
    nkl = tl.where(swap, kr, kl)
    nkr = tl.where(swap, kl, kr)
    nil = tl.where(swap, ir, il)
    nir = tl.where(swap, il, ir)
    k = tl.reshape(tl.permute(tl.join(nkl, nkr), (0, 1, 3, 2)), (ROWS, BLOCK))
    i = tl.reshape(tl.permute(tl.join(nil, nir), (0, 1, 3, 2)), (ROWS, BLOCK))
    return k, i


@triton.jit
def _sort_kernel(x_ptr, v_ptr, ix_ptr, R, N, D1, D2,
                 xs0, xs1, xs2, xsd, vs0, vs1, vs2, vsd, is0, is1, is2, isd,
                 KIND: tl.constexpr, DESC: tl.constexpr, ROWS: tl.constexpr,
                 BLOCK: tl.constexpr, LOG: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * ROWS + tl.arange(0, ROWS)[:, None]
    pos = tl.arange(0, BLOCK)[None, :].to(tl.int64)
    r_ok = rows < R
    r2 = rows % D2
    r01 = rows // D2
    r1 = r01 % D1
    r0 = r01 // D1
    xbase = r0 * xs0 + r1 * xs1 + r2 * xs2
    m = r_ok & (pos < N)
    x = tl.load(x_ptr + xbase + pos * xsd, mask=m, other=0)
    if KIND == 0:
        xf = x.to(tl.float32)
        bits = xf.to(tl.int32, bitcast=True)
        bits = tl.where(xf == 0, 0, bits)
        bits = tl.where(xf != xf, 0x7FFFFFFF, bits)
        key = (bits ^ ((bits >> 31) & 0x7FFFFFFF)).to(tl.int64)
    elif KIND == 1:
        xf = x.to(tl.float64)
        bits = xf.to(tl.int64, bitcast=True)
        bits = tl.where(xf == 0, 0, bits)
        bits = tl.where(xf != xf, 0x7FFFFFFFFFFFFFFF, bits)
        key = bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFF)
    else:
        key = x.to(tl.int64)
    if DESC:
        key = ~key
    key = tl.where(m, key, 0x7FFFFFFFFFFFFFFF)
    idx = pos + tl.zeros((ROWS, BLOCK), dtype=tl.int64)
    for stage in tl.static_range(1, LOG + 1):
        for t in tl.static_range(stage):
            key, idx = _bitonic_step(key, idx, ROWS, BLOCK, stage, stage - 1 - t)
    val = tl.load(x_ptr + xbase + idx * xsd, mask=m, other=0)
    tl.store(v_ptr + (r0 * vs0 + r1 * vs1 + r2 * vs2) + pos * vsd, val, mask=m)
    tl.store(ix_ptr + (r0 * is0 + r1 * is1 + r2 * is2) + pos * isd, idx, mask=m)


_FLOAT32_KEYED = (torch.float16, torch.bfloat16, torch.float32)


def _layout(t, dim):
    """(outer sizes, outer strides, stride of dim), the outer dims padded to three."""
    sizes = [t.shape[d] for d in range(t.dim()) if d != dim]
    strides = [t.stride(d) for d in range(t.dim()) if d != dim]
    pad = 3 - len(sizes)
    return [1] * pad + sizes, [0] * pad + strides, t.stride(dim)


def _sort_into(self, stable, dim, descending, values, indices):
    nd = self.dim()
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"sort(): dim {dim} out of range for a tensor of {nd} dims")
    dim %= n
    if values is None:
        values = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    if indices is None:
        indices = torch.empty(self.shape, dtype=torch.int64, device=self.device)
    if list(values.shape) != list(self.shape) or values.dtype != self.dtype:
        raise RuntimeError("sort(): values must have the shape and dtype of self")
    if list(indices.shape) != list(self.shape) or indices.dtype != torch.int64:
        raise RuntimeError("sort(): indices must be int64 of the shape of self")
    if self.numel() == 0:
        return values, indices
    x, v, ix = self, values, indices
    if nd == 0:
        x, v, ix = x.reshape(1), v.reshape(1), ix.reshape(1)
    v_k, ix_k = v, ix
    N = x.shape[dim]
    if x.dim() > 4:
        # More than three outer dims: sort a contiguous (before, N, after) copy, then copy back.
        pre = 1
        for d in range(dim):
            pre *= x.shape[d]
        three = (pre, N, x.numel() // (pre * N))
        x = x.contiguous().reshape(three)
        v_k = torch.empty(three, dtype=v.dtype, device=v.device)
        ix_k = torch.empty(three, dtype=ix.dtype, device=ix.device)
        dim = 1
    if N > _MAX_BLOCK:
        raise NotImplementedError(f"sort(): rows longer than {_MAX_BLOCK} are not supported")
    (_, D1, D2), xs, xsd = _layout(x, dim)
    _, vs, vsd = _layout(v_k, dim)
    _, is_, isd = _layout(ix_k, dim)
    R = x.numel() // N
    block = max(2, triton.next_power_of_2(N))
    log = block.bit_length() - 1
    budget = 65536 if self.device.type == "cpu" else 2048
    rows = min(triton.next_power_of_2(R), max(1, budget // block))
    if x.dtype in _FLOAT32_KEYED:
        kind = 0
    elif x.dtype == torch.float64:
        kind = 1
    else:
        kind = 2
    x_k, v_kk = x, v_k
    if x.dtype == torch.bool:
        x_k, v_kk = x.view(torch.uint8), v_k.view(torch.uint8)
    grid = (triton.cdiv(R, rows),)
    _sort_kernel[grid](x_k, v_kk, ix_k, R, N, D1, D2, xs[0], xs[1], xs[2], xsd,
                       vs[0], vs[1], vs[2], vsd, is_[0], is_[1], is_[2], isd,
                       KIND=kind, DESC=bool(descending), ROWS=rows, BLOCK=block, LOG=log,
                       num_warps=4 if block * rows <= 1024 else 8)
    if v_k is not v:
        v.copy_(v_k.reshape(v.shape))
        ix.copy_(ix_k.reshape(ix.shape))
    return values, indices


def sort(self, dim=-1, descending=False):
    return _sort_into(self, None, dim, descending, None, None)


def sort_stable(self, *, stable, dim=-1, descending=False):
    return _sort_into(self, stable, dim, descending, None, None)


def sort_values_stable(self, *, stable, dim=-1, descending=False, values, indices):
    return _sort_into(self, stable, dim, descending, values, indices)


def sort_values(self, dim=-1, descending=False, *, values, indices):
    return _sort_into(self, None, dim, descending, values, indices)
