"""Shipped solution for vLLM's fused_qk_norm_rope: one Triton kernel that reads every query and
key head of `qkv` once and writes it back once, normalised and rotated; value heads are never
touched.

The query and key heads of a token are consecutive in its row of qkv, so the work is R =
num_tokens * (num_heads_q + num_heads_k) rows of head_dim elements; row r is head
h = r % (num_heads_q + num_heads_k) of token t = r // (num_heads_q + num_heads_k). A program
owns BR such rows and holds each head as three register tiles: the first and second element of
every rotated pair ([BR, rot_dim/2] each: the two halves of the rotated part for NeoX, the even
and odd elements for GPT-J) and the unrotated tail ([BR, head_dim - rot_dim]). The sum of
squares, the normalisation, the weight (query or key weight by row) and the rotation are
computed in float32 from registers, and each element is stored by the thread that loaded it,
which is what makes the in-place update race-free without a barrier.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _qk_norm_rope_kernel(qkv_ptr, pos_ptr, cache_ptr, wq_ptr, wk_ptr, eps, R, NQK, NQ,
                         row_stride, pos_stride, cs0, cs1, HD, HALF, TAIL,
                         BR: tl.constexpr, BH: tl.constexpr, BT: tl.constexpr,
                         HAS_TAIL: tl.constexpr, NEOX: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    t = rows // NQK
    h = rows - t * NQK
    is_q = (h < NQ)[:, None]
    base = qkv_ptr + (t * row_stride + h * HD)[:, None]
    j = tl.arange(0, BH)
    pmask = r_ok[:, None] & (j < HALF)[None, :]
    if NEOX:
        i1 = j
        i2 = j + HALF
    else:
        i1 = 2 * j
        i2 = 2 * j + 1
    x1 = tl.load(base + i1[None, :], mask=pmask, other=0.0).to(tl.float32)
    x2 = tl.load(base + i2[None, :], mask=pmask, other=0.0).to(tl.float32)
    ss = tl.sum(x1 * x1 + x2 * x2, axis=1)
    if HAS_TAIL:
        k = tl.arange(0, BT)
        it = 2 * HALF + k
        tmask = r_ok[:, None] & (k < TAIL)[None, :]
        xt = tl.load(base + it[None, :], mask=tmask, other=0.0).to(tl.float32)
        ss += tl.sum(xt * xt, axis=1)
    inv = tl.rsqrt(ss / HD + eps)[:, None]
    jm = j < HALF
    w1 = tl.where(is_q, tl.load(wq_ptr + i1, mask=jm, other=0.0).to(tl.float32)[None, :],
                  tl.load(wk_ptr + i1, mask=jm, other=0.0).to(tl.float32)[None, :])
    w2 = tl.where(is_q, tl.load(wq_ptr + i2, mask=jm, other=0.0).to(tl.float32)[None, :],
                  tl.load(wk_ptr + i2, mask=jm, other=0.0).to(tl.float32)[None, :])
    y1 = x1 * (inv * w1)
    y2 = x2 * (inv * w2)
    pos = tl.load(pos_ptr + t * pos_stride, mask=r_ok, other=0).to(tl.int64)
    c_row = cache_ptr + (pos * cs0)[:, None]
    cos = tl.load(c_row + (j * cs1)[None, :], mask=pmask, other=0.0).to(tl.float32)
    sin = tl.load(c_row + ((j + HALF) * cs1)[None, :], mask=pmask, other=0.0).to(tl.float32)
    ty = qkv_ptr.dtype.element_ty
    tl.store(base + i1[None, :], (y1 * cos - y2 * sin).to(ty), mask=pmask)
    tl.store(base + i2[None, :], (y2 * cos + y1 * sin).to(ty), mask=pmask)
    if HAS_TAIL:
        km = k < TAIL
        wt = tl.where(is_q, tl.load(wq_ptr + it, mask=km, other=0.0).to(tl.float32)[None, :],
                      tl.load(wk_ptr + it, mask=km, other=0.0).to(tl.float32)[None, :])
        tl.store(base + it[None, :], (xt * (inv * wt)).to(ty), mask=tmask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _pow2_below(n: int) -> int:
    """The largest power of two not above n (at least 1)."""
    return 1 << (max(int(n), 1).bit_length() - 1)


def fused_qk_norm_rope(qkv: torch.Tensor, num_heads_q: int, num_heads_k: int, num_heads_v: int,
                       head_dim: int, eps: float, q_weight: torch.Tensor, k_weight: torch.Tensor,
                       cos_sin_cache: torch.Tensor, is_neox: bool,
                       position_ids: torch.Tensor) -> None:
    n_heads = num_heads_q + num_heads_k + num_heads_v
    if qkv.dim() != 2 or qkv.shape[1] != n_heads * head_dim:
        raise ValueError(f"fused_qk_norm_rope: qkv must be [num_tokens, {n_heads} * {head_dim}],"
                         f" got {list(qkv.shape)}")
    if qkv.stride(1) != 1:
        raise ValueError("fused_qk_norm_rope: qkv rows must be contiguous (written in place)")
    T = qkv.shape[0]
    if position_ids.shape != (T,):
        raise ValueError(f"fused_qk_norm_rope: position_ids must be [{T}], got "
                         f"{list(position_ids.shape)}")
    rot = cos_sin_cache.shape[1]
    if cos_sin_cache.dim() != 2 or rot % 2 or rot > head_dim:
        raise ValueError(f"fused_qk_norm_rope: cos_sin_cache {list(cos_sin_cache.shape)} does "
                         f"not fit head_dim {head_dim}")
    if q_weight.shape != (head_dim,) or k_weight.shape != (head_dim,):
        raise ValueError("fused_qk_norm_rope: q_weight and k_weight must be [head_dim]")
    NQK = num_heads_q + num_heads_k
    R = T * NQK
    if R == 0:
        return None
    q_weight = q_weight if q_weight.stride(0) == 1 else q_weight.contiguous()
    k_weight = k_weight if k_weight.stride(0) == 1 else k_weight.contiguous()
    half, tail = rot // 2, head_dim - rot
    bh, bt = _pow2(half), _pow2(tail)
    width = 2 * bh + (bt if tail else 0)
    if qkv.device.type == "cpu":
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        br, warps = min(_pow2(R), _pow2_below(65536 // width)), 4
    else:
        br, warps = min(_pow2(R), _pow2_below(4096 // width)), 4
    _qk_norm_rope_kernel[(triton.cdiv(R, br),)](
        qkv, position_ids, cos_sin_cache, q_weight, k_weight, float(eps), R, NQK, num_heads_q,
        qkv.stride(0), position_ids.stride(0), cos_sin_cache.stride(0), cos_sin_cache.stride(1),
        head_dim, half, tail, BR=br, BH=bh, BT=bt, HAS_TAIL=tail > 0, NEOX=bool(is_neox),
        num_warps=warps)
    return None
