"""Shipped solution for vLLM's rotary_embedding: one Triton kernel, launched once for `query`
and once for `key`, that reads each rotated element and its cache entry once and writes the
element back in place; the elements of a head past rot_dim are never touched.

A tensor is seen as R = num_tokens * num_heads rows (one head of one token each) of rot_dim / 2
element pairs. The token index is split over the (at most two) dimensions of `positions`, and
both the tensor and `positions` are addressed through their own strides (an offset start, a
token stride wider than the row, as a slice of a fused qkv tensor has), so nothing is copied.

A program owns a [BR rows, BH pairs] tile: it gathers the rows' positions, loads the cosines and
sines of those positions (rows of one token share them, so the cache is read from L1/L2), the two
halves of each pair (NeoX: the two halves of the rotated part; GPT-J: even and odd elements,
whose two strided loads cover the same cache lines), rotates in float32 and stores both halves,
each rounded once to the dtype.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(x_ptr, pos_ptr, cache_ptr, R, H, S1, xs0, xs1, xh, xd, ps0, ps1, cs0, cs1, HALF,
                 BR: tl.constexpr, BH: tl.constexpr, NEOX: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    h = rows % H
    t = rows // H
    t1 = t % S1
    t0 = t // S1
    pos = tl.load(pos_ptr + t0 * ps0 + t1 * ps1, mask=r_ok, other=0).to(tl.int64)
    j = tl.arange(0, BH).to(tl.int64)
    mask = r_ok[:, None] & (j < HALF)[None, :]
    c_row = cache_ptr + (pos * cs0)[:, None]
    cos = tl.load(c_row + (j * cs1)[None, :], mask=mask, other=0.0).to(tl.float32)
    sin = tl.load(c_row + ((j + HALF) * cs1)[None, :], mask=mask, other=0.0).to(tl.float32)
    if NEOX:
        i1 = j
        i2 = j + HALF
    else:
        i1 = 2 * j
        i2 = 2 * j + 1
    base = x_ptr + (t0 * xs0 + t1 * xs1 + h * xh)[:, None]
    p1 = base + (i1 * xd)[None, :]
    p2 = base + (i2 * xd)[None, :]
    x1 = tl.load(p1, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(p2, mask=mask, other=0.0).to(tl.float32)
    ty = x_ptr.dtype.element_ty
    tl.store(p1, (x1 * cos - x2 * sin).to(ty), mask=mask)
    tl.store(p2, (x2 * cos + x1 * sin).to(ty), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _layout(x: torch.Tensor, positions: torch.Tensor, head_size: int, name: str):
    """(H, token strides (s0, s1), head stride, element stride) of `x`, whose leading dimensions
    are those of `positions`, followed by [num_heads * head_size] or [num_heads, head_size]."""
    p = positions.dim()
    if x.shape[:p] != positions.shape or x.dim() not in (p + 1, p + 2):
        raise ValueError(f"rotary_embedding: {name} {list(x.shape)} does not fit positions "
                         f"{list(positions.shape)}")
    if x.dim() == p + 2:
        if x.shape[-1] != head_size:
            raise ValueError(f"rotary_embedding: {name} heads of {x.shape[-1]} elements, "
                             f"head_size {head_size}")
        n_heads, head_stride = x.shape[-2], x.stride(-2)
    else:
        if x.shape[-1] % head_size:
            raise ValueError(f"rotary_embedding: {name} rows of {x.shape[-1]} elements are not "
                             f"whole heads of {head_size}")
        n_heads, head_stride = x.shape[-1] // head_size, head_size * x.stride(-1)
    s0 = x.stride(0)
    s1 = x.stride(1) if p == 2 else 0
    return n_heads, s0, s1, head_stride, x.stride(-1)


def _rotate(x, positions, head_size, cache, is_neox, name):
    H, xs0, xs1, xh, xd = _layout(x, positions, head_size, name)
    T = positions.numel()
    R = T * H
    if R == 0:
        return
    half = cache.shape[1] // 2
    S1 = positions.shape[1] if positions.dim() == 2 else 1
    ps0 = positions.stride(0)
    ps1 = positions.stride(1) if positions.dim() == 2 else 0
    bh = _pow2(half)
    if x.device.type == "cpu":
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        br, warps = min(_pow2(R), max(1, 65536 // bh)), 4
    else:
        br = min(_pow2(R), max(1, 2048 // bh))
        warps = 4
    _rope_kernel[(triton.cdiv(R, br),)](
        x, positions, cache, R, H, S1, xs0, xs1, xh, xd, ps0, ps1,
        cache.stride(0), cache.stride(1), half, BR=br, BH=bh, NEOX=bool(is_neox), num_warps=warps)


def rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None,
                     head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None:
    if positions.dim() not in (1, 2):
        raise ValueError(f"rotary_embedding: positions must be 1-D or 2-D, got "
                         f"{list(positions.shape)}")
    rot = cos_sin_cache.shape[-1]
    if cos_sin_cache.dim() != 2 or rot % 2 or rot > head_size:
        raise ValueError(f"rotary_embedding: cos_sin_cache {list(cos_sin_cache.shape)} does not "
                         f"fit head_size {head_size}")
    _rotate(query, positions, head_size, cos_sin_cache, is_neox, "query")
    if key is not None:
        _rotate(key, positions, head_size, cos_sin_cache, is_neox, "key")
    return None
