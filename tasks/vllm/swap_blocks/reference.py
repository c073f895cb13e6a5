"""Reference for vLLM's swap_blocks (torch.ops._C_cache_ops.swap_blocks; csrc/cache_kernels.cu):
our own torch code, run by the worker on float64 copies (values) and on the native inputs
(structure and the GPU baseline).

The op copies whole cache blocks (pages) from one paged KV cache to another: vLLM uses it to
swap blocks out of the GPU cache into a CPU cache and back in. src and dst are caches of one
dtype, [num_blocks, ...] each (their num_blocks may differ), a block being everything under one
first index; both have the same number of elements per block, N = src[0].numel(). block_mapping
is int64 [num_pairs, 2]: row p names a block s = block_mapping[p, 0] of src and a block
d = block_mapping[p, 1] of dst, and dst[d] becomes a copy of src[s], bit for bit. Blocks of dst
that no pair names keep their values; src and block_mapping are not modified. The op returns
nothing.

vLLM issues one asynchronous memcpy per pair, in order, on one stream, so a destination named
twice would end up with the last pair's source. The cases never name a destination twice with
different sources (the mappings are either distinct block numbers throughout, or one pair
repeated through a stride-0 view), so the copies may be done in any order and at the same time.

In vLLM src and dst are on different devices (GPU and CPU, either way) and block_mapping is on
the CPU; in this task all three are on the evaluation device (vLLM's kernel also accepts two
tensors on one GPU: a device-to-device copy).

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect); the integer
cases (uint8 stands for vLLM's fp8 caches, stored as bytes) are compared exactly.
"""

import torch


def swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None:
    if src.dim() == 0 or dst.dim() == 0 or src.shape[1:] != dst.shape[1:]:
        raise ValueError("swap_blocks: src and dst need blocks of one shape")
    if block_mapping.dim() != 2 or block_mapping.shape[1] != 2:
        raise ValueError("swap_blocks: block_mapping must be [num_pairs, 2]")
    src_blocks = block_mapping[:, 0]
    dst_blocks = block_mapping[:, 1]
    dst[dst_blocks] = src[src_blocks]
