"""Reference for vLLM's copy_blocks_mla (torch.ops._C_cache_ops.copy_blocks_mla;
csrc/cache_kernels.cu): our own torch code, run by the worker on float64 copies (values) and on
the native inputs (structure and the GPU baseline).

The op is copy_blocks for MLA's joint latent cache: one cache per layer (no separate key and
value caches), each [num_blocks, block_size, entry] with entry = kv_lora_rank + qk_rope_head_dim
elements (576 for DeepSeek V2/V3; 656 bytes for vLLM's fp8_ds_mla cache, stored as uint8).
block_mapping is int64 [num_pairs, 2]: row p names a source block s = block_mapping[p, 0] and a
destination block d = block_mapping[p, 1], and for every layer, kv_caches[l][d] becomes a copy of
kv_caches[l][s], bit for bit. Blocks no pair names as a destination keep their values. The op
returns nothing and does not modify block_mapping.

vLLM copies a block as the kv_caches[0].stride(0) elements starting at block * stride(0), padding
included, so a cache may be padded (entries or blocks with gaps between them, as vLLM pads
entries for alignment): only the elements of the view are compared, so copying the padding or
not are both right. Here the copy is by indexing, through the view's strides.

vLLM's kernel runs all pairs at once, so its result is defined only when no block is the
destination of two pairs with different sources and no destination is also a source of another
pair (the scheduler guarantees both). The cases keep to that: either the pairs are (2p, 2p + 1)
(an arange mapping), or there is one random pair, or every row of the mapping is one random pair
(an expanded view: all copies write the same data). Within those rules, reading every source
before writing any destination (what the indexing below does) is exactly vLLM's result.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect); uint8 caches
are compared exactly.
"""

import torch


def copy_blocks_mla(kv_caches: list[torch.Tensor], block_mapping: torch.Tensor) -> None:
    src, dst = block_mapping[:, 0], block_mapping[:, 1]
    for cache in kv_caches:
        # The right side is gathered into a new tensor before the scatter: every source is
        # read before any destination is written.
        cache[dst] = cache[src]
