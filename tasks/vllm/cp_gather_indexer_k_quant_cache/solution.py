"""Shipped solution for vLLM's cp_gather_indexer_k_quant_cache: one Triton kernel, a byte
gather. A program owns BT output tokens: it finds each token's sequence by a binary search of
cu_seq_lens (log2(batch_size) rounds of gathered loads), then copies the token's head_dim key
bytes and its S scale bytes out of the cache block named by the block table.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(kv_ptr, dk_ptr, ds_ptr, bt_ptr, cu_ptr, T, B, n_iter, bt_stride, bt_cols,
                   blk_bytes, bs, dk_stride, ds_stride, HD: tl.constexpr, S: tl.constexpr,
                   BT: tl.constexpr, BHD: tl.constexpr, BS: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    t_ok = t < T
    # First j in [1, B] with cu[j] > t (B + 1 when none): the sequence is j - 1.
    lo = tl.full([BT], 1, tl.int64)
    hi = tl.full([BT], 0, tl.int64) + B + 1
    for _ in range(n_iter):
        act = lo < hi
        mid = (lo + hi) // 2
        c = tl.load(cu_ptr + mid, mask=act & t_ok & (mid <= B), other=0).to(tl.int64)
        go = c <= t
        lo = tl.where(act & go, mid + 1, lo)
        hi = tl.where(act & (~go), mid, hi)
    b = lo - 1
    start = tl.load(cu_ptr + b, mask=t_ok & (b < B), other=0).to(tl.int64)
    i = t - start
    ok = t_ok & (b < B) & (i >= 0)
    col = i // bs
    ok = ok & (col < bt_cols)
    blk = tl.load(bt_ptr + b * bt_stride + col, mask=ok, other=0).to(tl.int64)
    p = i % bs
    base = blk * blk_bytes
    h = tl.arange(0, BHD)
    m = ok[:, None] & (h < HD)[None, :]
    k = tl.load(kv_ptr + (base + p * HD)[:, None] + h[None, :], mask=m, other=0)
    tl.store(dk_ptr + (t * dk_stride)[:, None] + h[None, :], k, mask=m)
    s = tl.arange(0, BS)
    ms = ok[:, None] & (s < S)[None, :]
    sc = tl.load(kv_ptr + (base + bs * HD + p * S)[:, None] + s[None, :], mask=ms, other=0)
    tl.store(ds_ptr + (t * ds_stride)[:, None] + s[None, :], sc, mask=ms)


def cp_gather_indexer_k_quant_cache(kv_cache: torch.Tensor, dst_k: torch.Tensor,
                                    dst_scale: torch.Tensor, block_table: torch.Tensor,
                                    cu_seq_lens: torch.Tensor) -> None:
    name = "cp_gather_indexer_k_quant_cache"
    if kv_cache.dim() != 3 or dst_k.dim() != 2 or dst_scale.dim() != 2:
        raise ValueError(f"{name}: kv_cache must be 3-d, dst_k and dst_scale 2-d")
    if not (kv_cache.element_size() == dst_k.element_size() == dst_scale.element_size() == 1):
        raise ValueError(f"{name}: the caches must hold bytes")
    if not kv_cache.is_contiguous() or dst_k.stride(1) != 1 or dst_scale.stride(1) != 1:
        raise ValueError(f"{name}: kv_cache contiguous, dst rows with unit stride")
    T, hd = dst_k.shape
    S = dst_scale.shape[1]
    B = block_table.shape[0]
    if T == 0 or B == 0:
        return None
    kv = kv_cache.view(torch.uint8)
    dk = dst_k.view(torch.uint8)
    ds = dst_scale.view(torch.uint8)
    bt = block_table if block_table.stride(1) == 1 else block_table.contiguous()
    cu = cu_seq_lens if cu_seq_lens.is_contiguous() else cu_seq_lens.contiguous()
    nb, bs = kv.shape[0], kv.shape[1]
    gpu = kv.device.type != "cpu"
    bhd = triton.next_power_of_2(hd)
    br = min(triton.next_power_of_2(T), max(1, (4096 if gpu else 65536) // bhd))
    _gather_kernel[(triton.cdiv(T, br),)](
        kv, dk, ds, bt, cu, T, B, int(B + 1).bit_length() + 1, bt.stride(0), bt.shape[1],
        kv.stride(0), bs, dk.stride(0), ds.stride(0), HD=hd, S=S, BT=br, BHD=bhd,
        BS=triton.next_power_of_2(S), num_warps=4)
    return None
