"""Reference for vLLM's cp_gather_indexer_k_quant_cache
(torch.ops._C_cache_ops.cp_gather_indexer_k_quant_cache; csrc/cache_kernels.cu:
cp_gather_indexer_k_quant_cache and cp_gather_indexer_k_quant_cache_kernel; the cache layout
is the one indexer_k_quant_and_cache_kernel writes): our own torch code. A pure byte gather,
compared exactly.

DeepSeek V3.2's lightning-indexer keys are cached in fp8 with one float32 scale per
`quant_block_size` elements. kv_cache is uint8 [num_blocks, block_size, cache_stride] with
cache_stride = head_dim + head_dim / quant_block_size * 4, but a block is not laid out token by
token: its first block_size * head_dim bytes hold the fp8 keys (token p of the block at bytes
p * head_dim ...), and the scales follow, block_size * head_dim / quant_block_size float32
values, token p's at bytes block_size * head_dim + p * S ..., S = head_dim / quant_block_size * 4.

The op gathers the keys of the sequences of a batch into contiguous rows:

    for every token t in [0, num_tokens), num_tokens = dst_k.size(0):
        b   = the sequence with cu_seq_lens[b] <= t < cu_seq_lens[b + 1]
        i   = t - cu_seq_lens[b]                      (position in the sequence)
        blk = block_table[b, i // block_size];  p = i % block_size
        dst_k[t, :]     = block blk, bytes p * head_dim ... + head_dim
        dst_scale[t, :] = block blk, bytes block_size * head_dim + p * S ... + S

dst_k is [num_tokens, head_dim] and dst_scale [num_tokens, S], both uint8 (vLLM's caller
passes a float8_e4m3fn dst_k and views dst_scale as float32 afterwards; the op copies bytes);
quant_block_size = head_dim * 4 / dst_scale.size(1). A token in no sequence (t < cu[0] or
t >= cu[batch_size]) is left unchanged: vLLM reads a stale shared-memory batch index there
(its callers never build one), and the task defines it so that random cumulative lengths are
well defined.
"""

import torch


def cp_gather_indexer_k_quant_cache(kv_cache: torch.Tensor, dst_k: torch.Tensor,
                                    dst_scale: torch.Tensor, block_table: torch.Tensor,
                                    cu_seq_lens: torch.Tensor) -> None:
    T, hd = dst_k.shape
    S = dst_scale.shape[1]
    nb, bs = kv_cache.shape[0], kv_cache.shape[1]
    B = block_table.shape[0]
    if T == 0 or B == 0:
        return None
    dev = kv_cache.device
    cu = cu_seq_lens.to(torch.int64)
    t = torch.arange(T, device=dev)
    b = torch.searchsorted(cu[1:B + 1].contiguous(), t, right=True)  # count of ends <= t
    valid = (b < B) & (cu[0] <= t)
    b = b.clamp(max=B - 1)
    i = t - cu[b]
    valid &= i >= 0
    i = i.clamp(min=0)
    col = (i // bs).clamp(max=block_table.shape[1] - 1)
    blk = block_table[b, col].to(torch.int64)
    p = i % bs
    flat = kv_cache.reshape(-1)  # contiguous: block blk starts at blk * bs * cache_stride
    base = blk * (flat.shape[0] // nb)
    k_idx = (base + p * hd)[:, None] + torch.arange(hd, device=dev)[None, :]
    s_idx = (base + bs * hd + p * S)[:, None] + torch.arange(S, device=dev)[None, :]
    k_rows = flat[k_idx]
    s_rows = flat[s_idx]
    v = valid[:, None]
    dst_k.copy_(torch.where(v, k_rows.to(dst_k.dtype), dst_k))
    dst_scale.copy_(torch.where(v, s_rows.to(dst_scale.dtype), dst_scale))
    return None
