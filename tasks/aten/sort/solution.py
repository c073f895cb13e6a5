"""Shipped solution for aten::sort: a bitonic sorting network on (key, index) pairs.

Every element becomes an int64 key whose signed order is the order sort must produce: floats
through their bit pattern (negative values with the magnitude bits flipped, -0 folded onto +0,
every NaN onto the largest key, so NaN sorts after +inf), integers and bool as they are;
descending sorts use the bitwise complement of the key. Ties are broken by the original
position, so the result is the stable order whatever `stable` says (a valid answer for
stable=False too). Each row is padded to P = next_power_of_2(n) (at least 2) with the largest
key and positions that sort after every real element. The values are then gathered from `self`
at the sorted positions (exact copies, NaN payloads included), so no key is ever decoded.

Short rows (P <= 2048) are sorted in one launch, each row in one tile of P elements with the
whole network unrolled; the rows of a tile are independent. Longer rows are not: the unrolled
network grows as log2(P)**2 steps on a P-element tile, and on the H200 the 65536-element
int64 key+index tile never finished compiling (over 300 s). A long row is instead sorted by a
global bitonic network over int64 key/position scratch buffers of P elements per row:
  - one launch sorts every T-element tile (T = 2048) through all stages s <= log2(T), each
    compare's direction taken from bit s of its global position, so tiles alternate as the
    global network requires;
  - each later stage s = log2(T)+1 .. log2(P) runs one launch per step j >= log2(T) that
    compare-exchanges global positions p and p ^ 2**j (downward where bit s of p is set), then
    one in-tile launch for its steps j < log2(T); the last stage's in-tile launch gathers the
    values and writes both outputs instead of the scratch.
On the GPU every program holds at most 2048 elements, and the long path's kernels do not
depend on n (only on dtype and direction), so no row length forces a new large compile. The CPU
interpreter compiles nothing but pays per program, so there a program takes up to 65536
elements: several short rows, or several tiles (and pairs) of the long path, which runs the
same network.

Dims other than `dim` (at most three) are walked through their strides, for the input and both
outputs alike, so non-contiguous inputs and outputs are neither copied nor staged; a tensor of
more than four dims is sorted as a contiguous copy and copied back.
"""

import torch
import triton
import triton.language as tl

# The largest tile a kernel sorts in registers; rows padded beyond it take the global path.
_LOG_TILE = 11
_TILE = 1 << _LOG_TILE
# Elements one program handles on the CPU interpreter (see _sort_into).
_CPU_BUDGET = 1 << 16


@triton.jit
def _encode(x, m, KIND: tl.constexpr, DESC: tl.constexpr):
    # The int64 key whose signed order is the sort order; masked-off lanes get the largest key.
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
    return tl.where(m, key, 0x7FFFFFFFFFFFFFFF)


@triton.jit
def _bitonic_step(k, i, base, stage, ROWS: tl.constexpr, BLOCK: tl.constexpr,
                  J: tl.constexpr):
    # Compare-exchange the elements 2**J apart inside blocks of 2**(J+1) of each tile row, whose
    # first element is at position `base` (0, or one per tile row, shape (ROWS, 1, 1)) of its
    # sorted row; a pair sorts upward when its position's bit `stage` is 0, downward otherwise.
    A: tl.constexpr = BLOCK // (2 << J)
    B: tl.constexpr = 1 << J
    k4 = tl.permute(tl.reshape(k, (ROWS, A, 2, B)), (0, 1, 3, 2))
    i4 = tl.permute(tl.reshape(i, (ROWS, A, 2, B)), (0, 1, 3, 2))
    kl, kr = tl.split(k4)
    il, ir = tl.split(i4)
    g = base + tl.arange(0, A)[None, :, None] * (2 * B)
    down = ((g >> stage) & 1) == 1
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
    # Short rows: ROWS whole rows per program, each sorted in one BLOCK-element tile.
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
    key = _encode(x, m, KIND, DESC)
    idx = pos + tl.zeros((ROWS, BLOCK), dtype=tl.int64)
    for stage in tl.static_range(1, LOG + 1):
        for t in tl.static_range(stage):
            key, idx = _bitonic_step(key, idx, 0, stage, ROWS, BLOCK, stage - 1 - t)
    val = tl.load(x_ptr + xbase + idx * xsd, mask=m, other=0)
    tl.store(v_ptr + (r0 * vs0 + r1 * vs1 + r2 * vs2) + pos * vsd, val, mask=m)
    tl.store(ix_ptr + (r0 * is0 + r1 * is1 + r2 * is2) + pos * isd, idx, mask=m)


@triton.jit
def _tile_sort_kernel(x_ptr, key_ptr, pos_ptr, N, D1, D2, xs0, xs1, xs2, xsd, P,
                      KIND: tl.constexpr, DESC: tl.constexpr, TILES: tl.constexpr,
                      T: tl.constexpr, LOG_T: tl.constexpr):
    # Long rows, first launch: encode TILES consecutive T-element tiles of the flattened
    # (rows, P / T) tiles and run the global network's stages 1 .. LOG_T on each (directions
    # from the global positions).
    tile = tl.program_id(0).to(tl.int64) * TILES + tl.arange(0, TILES)[:, None]
    row = tile // (P // T)
    base = (tile % (P // T)) * T
    r2 = row % D2
    r01 = row // D2
    r1 = r01 % D1
    r0 = r01 // D1
    pos = base + tl.arange(0, T)[None, :].to(tl.int64)
    m = pos < N
    x = tl.load(x_ptr + (r0 * xs0 + r1 * xs1 + r2 * xs2) + pos * xsd, mask=m, other=0)
    key = _encode(x, m, KIND, DESC)
    idx = pos
    for stage in tl.static_range(1, LOG_T + 1):
        for t in tl.static_range(stage):
            key, idx = _bitonic_step(key, idx, base[:, :, None], stage, TILES, T,
                                     stage - 1 - t)
    tl.store(key_ptr + row * P + pos, key)
    tl.store(pos_ptr + row * P + pos, idx)


@triton.jit
def _global_step_kernel(key_ptr, pos_ptr, P, stage, j, dist, PAIRS: tl.constexpr):
    # Long rows: step j (dist = 2**j >= T) of stage `stage`, PAIRS pairs per program. Pair q
    # of the flattened (rows, P / 2) pairs joins positions lo and lo + dist of the flattened
    # (rows, P) scratch; P is a multiple of 2 * dist, so rows never mix.
    q = tl.program_id(0).to(tl.int64) * PAIRS + tl.arange(0, PAIRS)
    lo = ((q >> j) << (j + 1)) + (q & (dist - 1))
    hi = lo + dist
    kl = tl.load(key_ptr + lo)
    kr = tl.load(key_ptr + hi)
    il = tl.load(pos_ptr + lo)
    ir = tl.load(pos_ptr + hi)
    down = (((lo & (P - 1)) >> stage) & 1) == 1
    greater = (kl > kr) | ((kl == kr) & (il > ir))
    swap = greater != down
    tl.store(key_ptr + lo, tl.where(swap, kr, kl))
    tl.store(key_ptr + hi, tl.where(swap, kl, kr))
    tl.store(pos_ptr + lo, tl.where(swap, ir, il))
    tl.store(pos_ptr + hi, tl.where(swap, il, ir))


@triton.jit
def _tile_merge_kernel(key_ptr, pos_ptr, x_ptr, v_ptr, ix_ptr, N, D1, D2,
                       xs0, xs1, xs2, xsd, vs0, vs1, vs2, vsd, is0, is1, is2, isd, P, stage,
                       TILES: tl.constexpr, T: tl.constexpr, LOG_T: tl.constexpr,
                       FINAL: tl.constexpr):
    # Long rows: steps LOG_T - 1 .. 0 of stage `stage` on TILES consecutive T-element tiles.
    # The last stage (FINAL) gathers the values and writes both outputs instead of the scratch.
    tile = tl.program_id(0).to(tl.int64) * TILES + tl.arange(0, TILES)[:, None]
    row = tile // (P // T)
    base = (tile % (P // T)) * T
    pos = base + tl.arange(0, T)[None, :].to(tl.int64)
    key = tl.load(key_ptr + row * P + pos)
    idx = tl.load(pos_ptr + row * P + pos)
    for t in tl.static_range(LOG_T):
        key, idx = _bitonic_step(key, idx, base[:, :, None], stage, TILES, T, LOG_T - 1 - t)
    if FINAL:
        r2 = row % D2
        r01 = row // D2
        r1 = r01 % D1
        r0 = r01 // D1
        m = pos < N
        val = tl.load(x_ptr + (r0 * xs0 + r1 * xs1 + r2 * xs2) + idx * xsd, mask=m, other=0)
        tl.store(v_ptr + (r0 * vs0 + r1 * vs1 + r2 * vs2) + pos * vsd, val, mask=m)
        tl.store(ix_ptr + (r0 * is0 + r1 * is1 + r2 * is2) + pos * isd, idx, mask=m)
    else:
        tl.store(key_ptr + row * P + pos, key)
        tl.store(pos_ptr + row * P + pos, idx)


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
    (_, D1, D2), xs, xsd = _layout(x, dim)
    _, vs, vsd = _layout(v_k, dim)
    _, is_, isd = _layout(ix_k, dim)
    R = x.numel() // N
    block = max(2, triton.next_power_of_2(N))
    log = block.bit_length() - 1
    if x.dtype in _FLOAT32_KEYED:
        kind = 0
    elif x.dtype == torch.float64:
        kind = 1
    else:
        kind = 2
    x_k, v_kk = x, v_k
    if x.dtype == torch.bool:
        x_k, v_kk = x.view(torch.uint8), v_k.view(torch.uint8)
    desc = bool(descending)
    # Elements per program: tiles of at most 2048 elements compile quickly on the GPU; the CPU
    # interpreter compiles nothing and pays per program, so it takes whole rows or many tiles.
    budget = _CPU_BUDGET if self.device.type == "cpu" else _TILE
    if block <= _TILE:
        rows = min(triton.next_power_of_2(R), max(1, budget // block))
        grid = (triton.cdiv(R, rows),)
        _sort_kernel[grid](x_k, v_kk, ix_k, R, N, D1, D2, xs[0], xs[1], xs[2], xsd,
                           vs[0], vs[1], vs[2], vsd, is_[0], is_[1], is_[2], isd,
                           KIND=kind, DESC=desc, ROWS=rows, BLOCK=block, LOG=log,
                           num_warps=4 if block * rows <= 1024 else 8)
    else:
        # The global network over (R, P) key/position scratch, P = block.
        keys = torch.empty((R, block), dtype=torch.int64, device=x.device)
        pos = torch.empty((R, block), dtype=torch.int64, device=x.device)
        # Both powers of two, so the tiles and pairs of all rows split evenly into programs.
        ntiles = min(block, budget) // _TILE
        npairs = min(block, budget) // 2
        tiles = (R * (block // _TILE) // ntiles,)
        _tile_sort_kernel[tiles](x_k, keys, pos, N, D1, D2, xs[0], xs[1], xs[2], xsd, block,
                                 KIND=kind, DESC=desc, TILES=ntiles, T=_TILE, LOG_T=_LOG_TILE,
                                 num_warps=8)
        pairs = (R * (block // 2) // npairs,)
        for stage in range(_LOG_TILE + 1, log + 1):
            for j in range(stage - 1, _LOG_TILE - 1, -1):
                _global_step_kernel[pairs](keys, pos, block, stage, j, 1 << j, PAIRS=npairs,
                                           num_warps=4)
            _tile_merge_kernel[tiles](keys, pos, x_k, v_kk, ix_k, N, D1, D2,
                                      xs[0], xs[1], xs[2], xsd, vs[0], vs[1], vs[2], vsd,
                                      is_[0], is_[1], is_[2], isd, block, stage,
                                      TILES=ntiles, T=_TILE, LOG_T=_LOG_TILE,
                                      FINAL=stage == log, num_warps=8)
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
