"""Shipped solution for aten::sort: a bitonic sorting network on (key, position) pairs, split
so that the expensive network compiles once for the whole task, whatever the dtype, the
direction or the row length.

Every element becomes an int64 key whose signed order is the order sort must produce: floats
through their bit pattern (negative values with the magnitude bits flipped, -0 folded onto +0,
every NaN onto the largest key, so NaN sorts after +inf), integers and bool as they are;
descending sorts use the bitwise complement of the key. Ties are broken by the original
position, so the result is the stable order whatever `stable` says (a valid answer for
stable=False too). Each row is padded to P = next_power_of_2(n) (at least 2) with the largest
key and positions that sort after every real element. The values are gathered from `self` at
the sorted positions (exact copies, NaN payloads included), so no key is ever decoded.

On the GPU each row is padded to P = 64, 1024, 2048 or (long rows) a power of two above 2048
(on the interpreter to next_power_of_2(n), at least 2, as no compile is paid there), and the
work is split into kernels over an int64 key scratch and an int64 position scratch of (R, P)
elements (flattened, padded with dummy rows to whole programs):
  - _encode_kernel (per input dtype, elementwise, cheap to compile): reads `self` through its
    strides and writes the keys (complemented for descending: a runtime flag, not a
    specialisation) and positions;
  - _net_kernel (independent of dtype and direction): sorts 2048-element tiles of the flat
    scratch through the unrolled bitonic stages 1 .. log2(min(P, 2048)), the direction of a
    pair taken from bit `stage` of its position within its row, so the P-element rows of a
    tile are sorted independently, each ascending. It compiles for 3 network sizes at most
    (64, 1024, 2048) plus a MERGE form (the 11 in-tile steps of a runtime stage);
  - rows of P > 2048 go on through the global network: per stage s > 11, one cheap
    _global_step_kernel launch per step j >= 11 (positions p and p ^ 2**j over the scratch),
    then the MERGE _net_kernel for the steps j < 11;
  - _gather_kernel (per input dtype, elementwise, cheap): reads the sorted positions and writes
    values and indices through the output strides.
Before this split the network was unrolled inside a kernel specialised on dtype, direction,
every power-of-two row size and rows per program: dozens of 8-30 s compiles for the case grid
on the H200, which ran out of time. Int arguments of the network kernels are not specialised
(do_not_specialize), so a value of 1 or a multiple of 16 forces no other compile. On the GPU a
network program holds 2048 elements; the CPU interpreter compiles nothing but pays per program,
so there a program takes up to 65536 (several tiles, or pairs).

Dims other than `dim` (at most three) are walked through their strides, for the input and both
outputs alike, so non-contiguous inputs and outputs are neither copied nor staged; a tensor of
more than four dims is sorted as a contiguous copy and copied back.
"""

import torch
import triton
import triton.language as tl

# The tile a network program sorts in registers; rows padded beyond it also take global steps.
_LOG_TILE = 11
_TILE = 1 << _LOG_TILE
# Elements one program handles on the CPU interpreter (see _sort_into).
_CPU_BUDGET = 1 << 16
_KEY_MAX = 0x7FFFFFFFFFFFFFFF


@triton.jit
def _encode(x, KIND: tl.constexpr):
    # The int64 key whose signed order is the ascending sort order.
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
    return key


@triton.jit(do_not_specialize=["S", "R", "N", "D1", "D2", "xs0", "xs1", "xs2", "P", "LP",
                               "flip"])
def _encode_kernel(x_ptr, key_ptr, pos_ptr, S, R, N, D1, D2, xs0, xs1, xs2, xsd, P, LP, flip,
                   KIND: tl.constexpr, BLOCK: tl.constexpr):
    # Flat scratch element f = row * P + p: key of self[row, p] (complemented when flip = -1),
    # the largest key for p >= N and for the dummy rows past R; position p.
    one = tl.full((), 1, tl.int64)
    f = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    row = f >> (LP * one)
    p = f & (P * one - 1)
    m = (p < N) & (row < R)
    r2 = row % D2
    r01 = row // D2
    r1 = r01 % D1
    r0 = r01 // D1
    x = tl.load(x_ptr + (r0 * xs0 + r1 * xs1 + r2 * xs2) + p * xsd, mask=m, other=0)
    key = _encode(x, KIND) ^ (flip * one)
    key = tl.where(m, key, 0x7FFFFFFFFFFFFFFF)
    ok = f < S
    tl.store(key_ptr + f, key, mask=ok)
    tl.store(pos_ptr + f, p, mask=ok)


@triton.jit
def _bitonic_step(k, i, base, pmask, stage, ROWS: tl.constexpr, BLOCK: tl.constexpr,
                  J: tl.constexpr):
    # Compare-exchange the elements 2**J apart inside blocks of 2**(J+1) of each tile row, whose
    # first element is at flat position `base` (shape (ROWS, 1, 1)); a pair sorts upward when
    # bit `stage` of its position within its row (flat & pmask) is 0, downward otherwise; on
    # equal keys the lower position comes first.
    k4 = tl.permute(tl.reshape(k, (ROWS, BLOCK // (2 << J), 2, 1 << J)), (0, 1, 3, 2))
    i4 = tl.permute(tl.reshape(i, (ROWS, BLOCK // (2 << J), 2, 1 << J)), (0, 1, 3, 2))
    kl, kr = tl.split(k4)
    il, ir = tl.split(i4)
    g = base + tl.arange(0, BLOCK // (2 << J))[None, :, None] * (2 << J)
    down = (((g & pmask) >> stage) & 1) == 1
    greater = (kl > kr) | ((kl == kr) & (il > ir))
    swap = greater != down
    nkl = tl.where(swap, kr, kl)
    nkr = tl.where(swap, kl, kr)
    nil = tl.where(swap, ir, il)
    nir = tl.where(swap, il, ir)
    k = tl.reshape(tl.permute(tl.join(nkl, nkr), (0, 1, 3, 2)), (ROWS, BLOCK))
    i = tl.reshape(tl.permute(tl.join(nil, nir), (0, 1, 3, 2)), (ROWS, BLOCK))
    return k, i


@triton.jit(do_not_specialize=["pmask", "stage"])
def _net_kernel(key_ptr, pos_ptr, pmask, stage, TILES: tl.constexpr, T: tl.constexpr,
                LOG_T: tl.constexpr, MERGE: tl.constexpr):
    # TILES consecutive T-element tiles of the flat scratch. MERGE: the steps LOG_T - 1 .. 0 of
    # the (runtime) stage `stage` of long rows. Otherwise the stages 1 .. LOG_T, fully unrolled
    # (rows of P = 2**LOG_T elements end sorted ascending; longer rows get alternating runs).
    one = tl.full((), 1, tl.int64)
    tile = tl.program_id(0).to(tl.int64) * TILES + tl.arange(0, TILES)[:, None]
    flat = tile * T + tl.arange(0, T)[None, :]
    key = tl.load(key_ptr + flat)
    idx = tl.load(pos_ptr + flat)
    base = (tile * T)[:, :, None]
    pm = pmask * one
    if MERGE:
        st = stage * one
        for t in tl.static_range(LOG_T):
            key, idx = _bitonic_step(key, idx, base, pm, st, TILES, T, LOG_T - 1 - t)
    else:
        for s in tl.static_range(1, LOG_T + 1):
            for t in tl.static_range(s):
                key, idx = _bitonic_step(key, idx, base, pm, s, TILES, T, s - 1 - t)
    tl.store(key_ptr + flat, key)
    tl.store(pos_ptr + flat, idx)


@triton.jit(do_not_specialize=["P", "stage", "j", "dist"])
def _global_step_kernel(key_ptr, pos_ptr, P, stage, j, dist, PAIRS: tl.constexpr):
    # Long rows: step j (dist = 2**j >= T) of stage `stage`, PAIRS pairs per program. Pair q
    # of the flattened (rows, P / 2) pairs joins positions lo and lo + dist of the flattened
    # (rows, P) scratch; P is a multiple of 2 * dist, so rows never mix.
    one = tl.full((), 1, tl.int64)
    q = tl.program_id(0).to(tl.int64) * PAIRS + tl.arange(0, PAIRS)
    jj = j * one
    d = dist * one
    lo = ((q >> jj) << (jj + 1)) + (q & (d - 1))
    hi = lo + d
    kl = tl.load(key_ptr + lo)
    kr = tl.load(key_ptr + hi)
    il = tl.load(pos_ptr + lo)
    ir = tl.load(pos_ptr + hi)
    down = (((lo & (P * one - 1)) >> (stage * one)) & 1) == 1
    greater = (kl > kr) | ((kl == kr) & (il > ir))
    swap = greater != down
    tl.store(key_ptr + lo, tl.where(swap, kr, kl))
    tl.store(key_ptr + hi, tl.where(swap, kl, kr))
    tl.store(pos_ptr + lo, tl.where(swap, ir, il))
    tl.store(pos_ptr + hi, tl.where(swap, il, ir))


@triton.jit(do_not_specialize=["RP", "N", "D1", "D2", "xs0", "xs1", "xs2", "vs0", "vs1", "vs2",
                               "is0", "is1", "is2", "P", "LP"])
def _gather_kernel(pos_ptr, x_ptr, v_ptr, ix_ptr, RP, N, D1, D2, xs0, xs1, xs2, xsd,
                   vs0, vs1, vs2, vsd, is0, is1, is2, isd, P, LP, BLOCK: tl.constexpr):
    # Output element (row, p), p < N, of the flat (R, P) scratch: its sorted position, and the
    # value of self there.
    one = tl.full((), 1, tl.int64)
    f = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    row = f >> (LP * one)
    p = f & (P * one - 1)
    m = (p < N) & (f < RP)
    r2 = row % D2
    r01 = row // D2
    r1 = r01 % D1
    r0 = r01 // D1
    idx = tl.load(pos_ptr + f, mask=m, other=0)
    val = tl.load(x_ptr + (r0 * xs0 + r1 * xs1 + r2 * xs2) + idx * xsd, mask=m, other=0)
    tl.store(v_ptr + (r0 * vs0 + r1 * vs1 + r2 * vs2) + p * vsd, val, mask=m)
    tl.store(ix_ptr + (r0 * is0 + r1 * is1 + r2 * is2) + p * isd, idx, mask=m)


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
    # Rows are padded to one of a few network sizes (so the unrolled network compiles at most
    # three times for the whole task): 64, 1024, 2048, or a multiple of the 2048 tile.
    # The interpreter compiles nothing: there rows keep P = next_power_of_2(n) (at least 2).
    P = max(2, triton.next_power_of_2(N))
    if self.device.type != "cpu":
        P = 64 if P <= 64 else (1024 if P <= 1024 else max(P, _TILE))
    log = P.bit_length() - 1
    if x.dtype in _FLOAT32_KEYED:
        kind = 0
    elif x.dtype == torch.float64:
        kind = 1
    else:
        kind = 2
    x_k, v_kk = x, v_k
    if x.dtype == torch.bool:
        x_k, v_kk = x.view(torch.uint8), v_k.view(torch.uint8)
    flip = -1 if descending else 0
    # Elements per network program: one 2048-element tile on the GPU; the CPU interpreter
    # compiles nothing and pays per program, so it takes many tiles (and pairs).
    budget = _CPU_BUDGET if self.device.type == "cpu" else _TILE
    ntiles = max(1, min(triton.next_power_of_2(triton.cdiv(R * P, _TILE)), budget // _TILE))
    chunk = ntiles * _TILE
    S = triton.cdiv(R * P, chunk) * chunk  # scratch elements, whole programs of dummy rows
    keys = torch.empty(S, dtype=torch.int64, device=x.device)
    pos = torch.empty(S, dtype=torch.int64, device=x.device)
    eb = 65536 if self.device.type == "cpu" else 1024
    _encode_kernel[(triton.cdiv(S, eb),)](x_k, keys, pos, S, R, N, D1, D2, xs[0], xs[1], xs[2],
                                          xsd, P, log, flip, KIND=kind, BLOCK=eb, num_warps=4)
    tiles = (S // chunk,)
    _net_kernel[tiles](keys, pos, P - 1, 0, TILES=ntiles, T=_TILE, LOG_T=min(log, _LOG_TILE),
                       MERGE=False, num_warps=8)
    if log > _LOG_TILE:
        # Rows longer than a tile: P and S are multiples of the tile, so S // 2 pairs.
        npairs = min(S, budget) // 2
        pairs = (S // 2 // npairs,)
        for stage in range(_LOG_TILE + 1, log + 1):
            for j in range(stage - 1, _LOG_TILE - 1, -1):
                _global_step_kernel[pairs](keys, pos, P, stage, j, 1 << j, PAIRS=npairs,
                                           num_warps=4)
            _net_kernel[tiles](keys, pos, P - 1, stage, TILES=ntiles, T=_TILE,
                               LOG_T=_LOG_TILE, MERGE=True, num_warps=8)
    _gather_kernel[(triton.cdiv(R * P, eb),)](
        pos, x_k, v_kk, ix_k, R * P, N, D1, D2, xs[0], xs[1], xs[2], xsd,
        vs[0], vs[1], vs[2], vsd, is_[0], is_[1], is_[2], isd, P, log, BLOCK=eb, num_warps=4)
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
