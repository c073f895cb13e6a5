"""Shipped solution for vLLM's batched_moe_align_block_size: one Triton kernel.

The grid is (batches, chunks of one batch's segment). Every program reads the (at most 1024)
token counts, so it knows its batch's segment start, the padded total and nothing else: no
second launch and no scratch buffer. Program (b, j) writes chunk j of batch b's segment (the
ids b * M + i, then the sentinel B * M in the padding), and one share of the space after the
total (the sentinel in `sorted_token_ids`, -1 in `experts_ids`); the chunk-0 program of each
batch writes that batch's block ids, and program (0, 0) the total. All stores are contiguous.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _batched_align_kernel(ntok_ptr, sorted_ptr, bids_ptr, post_ptr, B, M, block_size, n_sorted,
                          n_blocks, sorted_share, blocks_share, B_PAD: tl.constexpr,
                          BLOCK: tl.constexpr):
    b = tl.program_id(0)
    j = tl.program_id(1)
    n_chunks = tl.num_programs(1)
    idx = tl.arange(0, B_PAD)
    n = tl.load(ntok_ptr + idx, mask=idx < B, other=0)
    padded = (n + block_size - 1) // block_size * block_size
    total = tl.sum(padded, axis=0)
    start = tl.sum(tl.where(idx < b, padded, 0), axis=0)
    n_b = tl.load(ntok_ptr + b)
    pad_b = (n_b + block_size - 1) // block_size * block_size
    sentinel = B * M
    lane = tl.arange(0, BLOCK)
    # This batch's segment.
    offs = j * BLOCK + lane
    ids = tl.where(offs < n_b, b * M + offs, sentinel)
    tl.store(sorted_ptr + start + offs, ids, mask=offs < pad_b)
    # One share of [total, n_sorted).
    share = b * n_chunks + j
    lo = total + share * sorted_share
    hi = tl.minimum(lo + sorted_share, n_sorted)
    for s in range(lo, hi, BLOCK):
        p = s + lane
        tl.store(sorted_ptr + p, tl.full([BLOCK], 0, tl.int32) + sentinel, mask=p < hi)
    if j == 0:
        first_block = start // block_size
        for q0 in range(0, pad_b // block_size, BLOCK):
            q = q0 + lane
            tl.store(bids_ptr + first_block + q, tl.full([BLOCK], 0, tl.int32) + b,
                     mask=q < pad_b // block_size)
        blo = total // block_size + b * blocks_share
        bhi = tl.minimum(blo + blocks_share, n_blocks)
        for s in range(blo, bhi, BLOCK):
            q = s + lane
            tl.store(bids_ptr + q, tl.full([BLOCK], -1, tl.int32), mask=q < bhi)
        if b == 0:
            tl.store(post_ptr, total)


def batched_moe_align_block_size(max_tokens_per_batch: int, block_size: int,
                                 expert_num_tokens: torch.Tensor,
                                 sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                                 num_tokens_post_pad: torch.Tensor) -> None:
    if block_size <= 0 or max_tokens_per_batch <= 0:
        raise ValueError("batched_moe_align_block_size: block_size and max_tokens_per_batch "
                         "must be positive")
    ntok = expert_num_tokens
    if ntok.dim() != 1 or ntok.dtype != torch.int32 or not ntok.is_contiguous():
        raise ValueError("batched_moe_align_block_size: expert_num_tokens must be a contiguous "
                         "1-d int32 tensor")
    batches = ntok.numel()
    if not 0 < batches <= 1024:
        raise ValueError(f"batched_moe_align_block_size: {batches} batches (1 to 1024 allowed)")
    for name, t in (("sorted_token_ids", sorted_token_ids), ("experts_ids", experts_ids),
                    ("num_tokens_post_pad", num_tokens_post_pad)):
        if t.dtype != torch.int32 or not t.is_contiguous():
            raise ValueError(f"batched_moe_align_block_size: {name} must be a contiguous int32 "
                             "tensor")
    seg = triton.cdiv(max_tokens_per_batch, block_size) * block_size
    # The interpreter runs programs one by one: fewer, larger chunks there.
    block = 4096 if ntok.device.type == "cpu" else 1024
    n_chunks = triton.cdiv(seg, block)
    n_sorted = sorted_token_ids.numel()
    n_blocks = experts_ids.numel()
    _batched_align_kernel[(batches, n_chunks)](
        ntok, sorted_token_ids, experts_ids, num_tokens_post_pad, batches, max_tokens_per_batch,
        block_size, n_sorted, n_blocks, triton.cdiv(n_sorted, batches * n_chunks),
        triton.cdiv(n_blocks, batches), B_PAD=triton.next_power_of_2(batches), BLOCK=block,
        num_warps=4)
    return None
