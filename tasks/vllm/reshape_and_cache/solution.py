"""Shipped solution for vLLM's reshape_and_cache: one Triton kernel, key and value together.

A token's row of num_heads * head_size elements is seen as Q = row / x chunks of x elements (x
is the key cache's last dim: 16 bytes), chunk q being chunk j = q % (head_size / x) of head
h = q // (head_size / x). A program owns a tile of [BT tokens, BQ chunks, x]: it loads the
tokens' slots once, turns them into (block, position) and loads the key and value tiles, which
are contiguous along the chunks (coalesced). Tokens with a negative slot are masked off, loads
included.

The stores go through the caches' strides. In the key cache a chunk is x contiguous elements
(one 16-byte vector store) and the same chunk of consecutive positions of a block sits side by
side; in the value cache an element's positions are the contiguous dim. Neither run can be
proven contiguous at compile time (the positions come from slot_mapping), and for such a tile
Triton 3.6 lays the threads of a warp along its first dim, the tokens (checked in the sm_90
layouts it compiles, not timed): so when consecutive tokens fill consecutive positions
(prefill), neighbouring threads write neighbouring 16-byte key chunks and neighbouring value
elements, and a 16-token tile covers a 16-position block's whole 32-byte value rows (16-bit
types). Values are copied as they are ("auto").
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cache_kernel(key_ptr, value_ptr, kc_ptr, vc_ptr, slot_ptr, T, Q, QH, B, ks, vs,
                  kc_b, kc_h, kc_q, kc_p, kc_x, vc_b, vc_h, vc_d, vc_p,
                  X: tl.constexpr, BT: tl.constexpr, BQ: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    q = tl.program_id(1) * BQ + tl.arange(0, BQ)
    i = tl.arange(0, X)
    slot = tl.load(slot_ptr + t, mask=t < T, other=-1)
    ok = slot >= 0
    s = tl.where(ok, slot, 0)
    blk = s // B
    pos = s - blk * B
    h = (q // QH).to(tl.int64)
    j = (q - (q // QH) * QH).to(tl.int64)
    m = ok[:, None, None] & (q < Q)[None, :, None] & (i < X)[None, None, :]
    col = (q * X)[None, :, None] + i[None, None, :]
    k = tl.load(key_ptr + (t * ks)[:, None, None] + col, mask=m)
    v = tl.load(value_ptr + (t * vs)[:, None, None] + col, mask=m)
    k_dst = ((blk * kc_b + pos * kc_p)[:, None, None] + (h * kc_h + j * kc_q)[None, :, None]
             + (i * kc_x)[None, None, :])
    tl.store(kc_ptr + k_dst, k, mask=m)
    v_dst = ((blk * vc_b + pos * vc_p)[:, None, None] + (h * vc_h + (j * X) * vc_d)[None, :, None]
             + (i * vc_d)[None, None, :])
    tl.store(vc_ptr + v_dst, v, mask=m)

def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _rows_packed(x: torch.Tensor) -> bool:
    """Whether each token's [num_heads, head_size] of x is one contiguous run (dims of size 1
    may carry any stride)."""
    _, h, d = x.shape
    return (d == 1 or x.stride(2) == 1) and (h == 1 or x.stride(1) == d)


def _tiles(T, Q, X, gpu):
    """(BT, BQ, num_warps) for T tokens of Q chunks of X elements."""
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        bq = min(_pow2(Q), max(1, 16384 // X))
        return min(_pow2(T), max(1, 65536 // (bq * X))), bq, 4
    # 16 tokens fill one 16-position block: the value stores then cover whole 32-byte sectors
    # (16-bit types) in prefill, and 16-byte key chunks of 16 positions make 256 bytes.
    bt = min(_pow2(T), 16)
    bq = min(_pow2(Q), max(1, 4096 // (bt * X)))
    return bt, bq, 4


def reshape_and_cache(key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                      value_cache: torch.Tensor, slot_mapping: torch.Tensor, kv_cache_dtype: str,
                      k_scale: torch.Tensor, v_scale: torch.Tensor) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"reshape_and_cache: kv_cache_dtype {kv_cache_dtype!r} is "
                                  "not supported (only 'auto')")
    T = slot_mapping.shape[0]
    _, H, D = key.shape
    nb, _, QH, B, X = key_cache.shape
    if key.shape[0] < T or value.shape[0] < T or value.shape[1:] != key.shape[1:]:
        raise RuntimeError("reshape_and_cache: key and value must be [rows, num_heads, "
                           "head_size] with rows >= slot_mapping.size(0)")
    if list(key_cache.shape) != [nb, H, D // X, B, X] or D % X:
        raise RuntimeError(f"reshape_and_cache: key_cache must be [num_blocks, {H}, {D}/x, "
                           f"block_size, x], got {list(key_cache.shape)}")
    if list(value_cache.shape) != [nb, H, D, B]:
        raise RuntimeError(f"reshape_and_cache: value_cache must be [{nb}, {H}, {D}, {B}], "
                           f"got {list(value_cache.shape)}")
    if key_cache.dtype != key.dtype or value_cache.dtype != value.dtype:
        raise RuntimeError("reshape_and_cache: 'auto' needs caches of the input dtype")
    if X & (X - 1):
        raise RuntimeError(f"reshape_and_cache: x = {X} must be a power of two")
    Q = H * QH
    if T == 0 or Q == 0:
        return None
    # A token's row is read as one run; the rare key/value whose heads are not packed is copied.
    if not _rows_packed(key):
        key = key.contiguous()
    if not _rows_packed(value):
        value = value.contiguous()
    if slot_mapping.stride(0) != 1:
        slot_mapping = slot_mapping.contiguous()
    bt, bq, warps = _tiles(T, Q, X, key.device.type != "cpu")
    grid = (triton.cdiv(T, bt), triton.cdiv(Q, bq))
    _cache_kernel[grid](key, value, key_cache, value_cache, slot_mapping, T, Q, QH, B,
                        key.stride(0), value.stride(0), *key_cache.stride(), *value_cache.stride(),
                        X=X, BT=bt, BQ=bq, num_warps=warps)
    return None
