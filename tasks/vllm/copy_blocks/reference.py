"""Reference for vLLM's copy_blocks (torch.ops._C_cache_ops.copy_blocks; csrc/cache_kernels.cu):
our own torch code, run by the worker on float64 copies (values) and on the native inputs
(structure and the GPU baseline).

The op copies whole cache blocks (pages) within each layer's paged KV cache, as vLLM's
copy-on-write of a shared prefix block does. key_caches and value_caches are lists with one
cache per layer, all of one dtype; a cache is [num_blocks, ...], one block being everything
under its first index (vLLM's key cache is [num_blocks, num_heads, head_size / x, block_size, x],
its value cache [num_blocks, num_heads, head_size, block_size]; the op does not look inside a
block). block_mapping is int64 [num_pairs, 2]: row p names a source block s = block_mapping[p, 0]
and a destination block d = block_mapping[p, 1], and for every layer, key_caches[l][d] becomes a
copy of key_caches[l][s] and value_caches[l][d] a copy of value_caches[l][s], every element bit
for bit. Blocks no pair names as a destination keep their values. The op returns nothing and does
not modify block_mapping.

vLLM's kernel runs all pairs at once, so its result is defined only when no block is the
destination of two pairs with different sources and no destination is also a source of another
pair (the scheduler guarantees both). The cases keep to that: either the pairs are (2p, 2p + 1)
(an arange mapping: distinct destinations, none of them a source), or there is one random pair,
or every row of the mapping is one random pair (an expanded view, stride 0 over the pairs: all
copies write the same data). A pair whose source and destination are the same block changes
nothing. Within those rules, reading every source before writing any destination (what the
indexing below does) is exactly vLLM's result.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect); the uint8 cases
(vLLM's fp8 caches are stored as bytes) are compared exactly.
"""

import torch


def copy_blocks(key_caches: list[torch.Tensor], value_caches: list[torch.Tensor],
                block_mapping: torch.Tensor) -> None:
    if len(key_caches) != len(value_caches):
        raise ValueError("copy_blocks: key_caches and value_caches need one cache per layer")
    src, dst = block_mapping[:, 0], block_mapping[:, 1]
    for cache in list(key_caches) + list(value_caches):
        # The right side is gathered into a new tensor before the scatter: every source is
        # read before any destination is written.
        cache[dst] = cache[src]
