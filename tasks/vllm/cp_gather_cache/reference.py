"""Reference for vLLM's cp_gather_cache (torch.ops._C_cache_ops.cp_gather_cache;
csrc/cache_kernels.cu): our own torch code, run by the worker on float64 copies (values) and on
the native inputs (structure and the GPU baseline).

The op gathers the cached entries of a batch of sequences out of the paged KV cache into one
packed tensor (vLLM uses it to read back the context of chunked-prefill and context-parallel
MLA attention). src_cache is [num_blocks, block_size, ENTRY...] (an entry is everything under
one (block, position): 576 elements for DeepSeek's MLA cache, [num_heads, head_size] for a flash
layout cache); dst is [rows, ENTRY...]. For sequence b < batch_size, with
start = cu_seq_lens[b] and end = cu_seq_lens[b + 1], and offset o = seq_starts[b] (0 when
seq_starts is None), token i in [0, end - start) is at position q = o + i of the sequence, which
lives at position q % block_size of cache block block_table[b, q // block_size]; it is copied
bit for bit to dst[start + i]. A sequence with end <= start copies nothing (vLLM's kernel does
nothing for it), and every other row of dst keeps its value. block_table, cu_seq_lens and
seq_starts are int32. The op returns nothing and writes only dst.

vLLM's sequences write disjoint rows of dst when cu_seq_lens is non-decreasing, its normal
form, for which the case format has no distribution: the cases use cu_seq_lens = 0, 1, ...,
batch_size (an arange: batch_size sequences of one token each, at random offsets seq_starts),
or batch_size 1 or 2 with random cu_seq_lens (random lengths, possibly empty; two sequences
[c0, c1) and [c1, c2) never overlap). So no row of dst is written twice and the result does not
depend on any order.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect); uint8 caches
(vLLM's fp8 caches) are compared exactly.
"""

import torch


def cp_gather_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor,
                    cu_seq_lens: torch.Tensor, batch_size: int,
                    seq_starts: torch.Tensor | None) -> None:
    block_size = src_cache.shape[1]
    dev = cu_seq_lens.device
    b_all = torch.arange(batch_size, device=dev)
    start = cu_seq_lens[:batch_size].long()
    lens = (cu_seq_lens[1:batch_size + 1].long() - start).clamp(min=0)
    # One index per gathered token: its sequence b and its index i within the sequence.
    b = torch.repeat_interleave(b_all, lens)
    first = torch.cumsum(lens, 0) - lens
    i = torch.arange(b.shape[0], device=dev) - first[b]
    q = i if seq_starts is None else i + seq_starts.long()[b]
    blocks = block_table.long()[b, q // block_size]
    dst[start[b] + i] = src_cache[blocks, q % block_size]
