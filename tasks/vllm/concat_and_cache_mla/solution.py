"""Shipped solution for vLLM's concat_and_cache_mla: one Triton kernel, one pass.

A program owns BT tokens: it loads their slots once, turns them into cache rows (block and
position), then copies the tokens' kv_c in [BT, BR] tiles into the first kv_lora_rank elements of
their cache entries and their k_pe in [BT, BP] tiles into the last pe_dim elements. Each tile
row is a contiguous run of the source row and of the cache entry, so loads and stores are
coalesced, and with separate tiles for the two parts no lane is wasted on the 576-element entry of
DeepSeek (512 + 64) as a single power-of-two tile of 1024 would. Tokens with a negative slot are
masked off, loads included. Values are copied as they are ("auto"); offsets are 64-bit (a cache
passes 2**31 elements at about 60 000 blocks of 64 entries).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _concat_cache_kernel(kvc_ptr, kpe_ptr, cache_ptr, slot_ptr, T, R, P, B, slot_s,
                         kvc_s0, kvc_s1, kpe_s0, kpe_s1, c_s0, c_s1, c_s2,
                         BT: tl.constexpr, BR: tl.constexpr, BP: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    slot = tl.load(slot_ptr + t * slot_s, mask=t < T, other=-1)
    ok = slot >= 0
    s = tl.where(ok, slot, 0)
    blk = s // B
    row = blk * c_s0 + (s - blk * B) * c_s1
    for c0 in range(0, R, BR):
        c = c0 + tl.arange(0, BR)
        m = ok[:, None] & (c < R)[None, :]
        x = tl.load(kvc_ptr + (t * kvc_s0)[:, None] + (c * kvc_s1)[None, :], mask=m)
        tl.store(cache_ptr + row[:, None] + (c * c_s2)[None, :], x, mask=m)
    for c0 in range(0, P, BP):
        c = c0 + tl.arange(0, BP)
        m = ok[:, None] & (c < P)[None, :]
        x = tl.load(kpe_ptr + (t * kpe_s0)[:, None] + (c * kpe_s1)[None, :], mask=m)
        tl.store(cache_ptr + row[:, None] + ((R + c) * c_s2)[None, :], x, mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(T: int, R: int, P: int, gpu: bool) -> tuple[int, int, int, int]:
    """(BT, BR, BP, num_warps)."""
    br, bp = min(_pow2(R), 512), min(_pow2(P), 512)
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        return min(_pow2(T), max(1, 65536 // br)), br, bp, 4
    # About 4096 elements of kv_c per program (8 DeepSeek tokens: 9 KiB in 16-bit types).
    bt = min(_pow2(T), max(1, 4096 // br))
    return bt, br, bp, 8 if bt * br >= 4096 else 4


def concat_and_cache_mla(kv_c: torch.Tensor, k_pe: torch.Tensor, kv_cache: torch.Tensor,
                         slot_mapping: torch.Tensor, kv_cache_dtype: str,
                         scale: torch.Tensor) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"concat_and_cache_mla: kv_cache_dtype {kv_cache_dtype!r} "
                                  "is not supported (only 'auto')")
    if kv_c.dim() != 2 or k_pe.dim() != 2 or kv_cache.dim() != 3:
        raise RuntimeError("concat_and_cache_mla: kv_c must be [rows, kv_lora_rank], k_pe "
                           "[rows, pe_dim] and kv_cache [num_blocks, block_size, entry]")
    T = slot_mapping.shape[0]
    R, P = kv_c.shape[1], k_pe.shape[1]
    B = kv_cache.shape[1]
    if kv_cache.shape[2] != R + P:
        raise RuntimeError(f"concat_and_cache_mla: kv_cache.size(2) = {kv_cache.shape[2]}, "
                           f"expected kv_lora_rank + pe_dim = {R + P}")
    if kv_c.shape[0] < T or k_pe.shape[0] < T:
        raise RuntimeError("concat_and_cache_mla: kv_c and k_pe need at least "
                           "slot_mapping.size(0) rows")
    if kv_cache.dtype != kv_c.dtype or kv_cache.dtype != k_pe.dtype:
        raise RuntimeError("concat_and_cache_mla: 'auto' needs a cache of the input dtype")
    if T == 0 or R + P == 0:
        return None
    bt, br, bp, warps = _tiles(T, R, P, kv_c.device.type != "cpu")
    _concat_cache_kernel[(triton.cdiv(T, bt),)](
        kv_c, k_pe, kv_cache, slot_mapping, T, R, P, B, slot_mapping.stride(0),
        kv_c.stride(0), kv_c.stride(1), k_pe.stride(0), k_pe.stride(1), *kv_cache.stride(),
        BT=bt, BR=br, BP=bp, num_warps=warps)
    return None
