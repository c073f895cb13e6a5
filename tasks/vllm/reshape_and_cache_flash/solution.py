"""Shipped solution for vLLM's reshape_and_cache_flash: one Triton kernel, key and value together.

A program owns a tile of [BT tokens, BC columns], a column being one of the num_heads * head_size
elements of a token's row. It loads the tokens' slots once, turns them into (block, position)
and copies the key and value tiles (contiguous along the columns, so loads are coalesced) into
both caches; tokens with a negative slot are masked off, loads included, so they cost no
traffic. When a cache row is one contiguous run (the heads follow each other, the flash layout's
usual case) the destination is row start + column and the stores vectorize; a cache whose heads
are strided (a permuted view) takes the general head/position path. Values are copied as they
are ("auto" cache dtype).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cache_flash_kernel(key_ptr, value_ptr, kc_ptr, vc_ptr, slot_ptr, T, N, D, B, ks, vs,
                        kc_b, kc_p, kc_h, kc_d, vc_b, vc_p, vc_h, vc_d,
                        BT: tl.constexpr, BC: tl.constexpr, ROWS: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    slot = tl.load(slot_ptr + t, mask=t < T, other=-1)
    ok = slot >= 0
    s = tl.where(ok, slot, 0)
    blk = s // B
    pos = s - blk * B
    m = ok[:, None] & (c < N)[None, :]
    if ROWS:
        k_dst = (blk * kc_b + pos * kc_p)[:, None] + c[None, :]
        v_dst = (blk * vc_b + pos * vc_p)[:, None] + c[None, :]
    else:
        h = c // D
        d = c - h * D
        k_dst = (blk * kc_b + pos * kc_p)[:, None] + (h.to(tl.int64) * kc_h + d * kc_d)[None, :]
        v_dst = (blk * vc_b + pos * vc_p)[:, None] + (h.to(tl.int64) * vc_h + d * vc_d)[None, :]
    k = tl.load(key_ptr + (t * ks)[:, None] + c[None, :], mask=m)
    tl.store(kc_ptr + k_dst, k, mask=m)
    v = tl.load(value_ptr + (t * vs)[:, None] + c[None, :], mask=m)
    tl.store(vc_ptr + v_dst, v, mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _rows_packed(x: torch.Tensor) -> bool:
    """Whether each token's [num_heads, head_size] of x is one contiguous run (dims of size 1
    may carry any stride)."""
    _, h, d = x.shape
    return (d == 1 or x.stride(2) == 1) and (h == 1 or x.stride(1) == d)


def _cache_row_packed(c: torch.Tensor) -> bool:
    _, _, h, d = c.shape
    return (d == 1 or c.stride(3) == 1) and (h == 1 or c.stride(2) == d)


def _tiles(T, N, gpu):
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        bc = min(_pow2(N), 16384)
        return min(_pow2(T), max(1, 65536 // bc)), bc, 4
    bc = min(_pow2(N), 1024)
    return min(_pow2(T), max(1, 4096 // bc)), bc, 4


def reshape_and_cache_flash(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                            value_cache: torch.Tensor, slot_mapping: torch.Tensor,
                            kv_cache_dtype: str, k_scale: torch.Tensor,
                            v_scale: torch.Tensor) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"reshape_and_cache_flash: kv_cache_dtype "
                                  f"{kv_cache_dtype!r} is not supported (only 'auto')")
    T = slot_mapping.shape[0]
    _, H, D = key.shape
    nb, B = key_cache.shape[0], key_cache.shape[1]
    if key.shape[0] < T or value.shape[0] < T or value.shape[1:] != key.shape[1:]:
        raise RuntimeError("reshape_and_cache_flash: key and value must be [rows, num_heads, "
                           "head_size] with rows >= slot_mapping.size(0)")
    if list(key_cache.shape) != [nb, B, H, D] or value_cache.shape != key_cache.shape:
        raise RuntimeError("reshape_and_cache_flash: caches must be [num_blocks, block_size, "
                           f"{H}, {D}], got {list(key_cache.shape)}, {list(value_cache.shape)}")
    if key_cache.dtype != key.dtype or value_cache.dtype != value.dtype:
        raise RuntimeError("reshape_and_cache_flash: 'auto' needs caches of the input dtype")
    N = H * D
    if T == 0 or N == 0:
        return None
    # A token's row is read as one run; the rare key/value whose heads are not packed is copied.
    if not _rows_packed(key):
        key = key.contiguous()
    if not _rows_packed(value):
        value = value.contiguous()
    if slot_mapping.stride(0) != 1:
        slot_mapping = slot_mapping.contiguous()
    rows = _cache_row_packed(key_cache) and _cache_row_packed(value_cache)
    bt, bc, warps = _tiles(T, N, key.device.type != "cpu")
    grid = (triton.cdiv(T, bt), triton.cdiv(N, bc))
    _cache_flash_kernel[grid](key, value, key_cache, value_cache, slot_mapping, T, N, D, B,
                              key.stride(0), value.stride(0), *key_cache.stride(),
                              *value_cache.stride(), BT=bt, BC=bc, ROWS=rows, num_warps=warps)
    return None
