"""Reference for vLLM's batched_moe_align_block_size
(torch.ops._moe_C.batched_moe_align_block_size; csrc/moe/moe_align_sum_kernels.cu,
batched_moe_align_block_size and batched_moe_align_block_size_kernel): our own torch code, run by
the worker on the inputs as they are (every tensor is an integer tensor) for the values, the
structure and the GPU baseline.

batched_moe_align_block_size(max_tokens_per_batch, block_size, expert_num_tokens,
sorted_token_ids, experts_ids, num_tokens_post_pad) is moe_align_block_size for the batched
expert layout, where the tokens routed to local expert b are already gathered into rows
b * max_tokens_per_batch ... of a [num_experts, max_tokens_per_batch, hidden] buffer and
expert_num_tokens[b] (int32, at most max_tokens_per_batch) says how many of them are real. With
B = expert_num_tokens.numel(), M = max_tokens_per_batch, n[b] = expert_num_tokens[b] and
padded[b] = ceil(n[b] / block_size) * block_size, the batches' segments are laid out in
ascending b, start[b] = padded[0] + ... + padded[b - 1], total = padded[0] + ... + padded[B - 1],
and the op writes:

    sorted_token_ids[start[b] + i] = b * M + i   for i < n[b]
    sorted_token_ids[p] = B * M                  at every other position (the sentinel: the
                                                 padding of each segment and everything from
                                                 total to the end of the buffer)
    experts_ids[start[b] / block_size + q] = b   for q < padded[b] / block_size
    experts_ids[q] = -1                          for every block from total / block_size on
    num_tokens_post_pad[0] = total

It returns nothing and does not modify expert_num_tokens. Every output is int32 and compared
exactly.
"""

import torch


def batched_moe_align_block_size(max_tokens_per_batch: int, block_size: int,
                                 expert_num_tokens: torch.Tensor,
                                 sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                                 num_tokens_post_pad: torch.Tensor) -> None:
    dev = expert_num_tokens.device
    n = expert_num_tokens.to(torch.int64)
    batches = n.numel()
    padded = (n + block_size - 1) // block_size * block_size
    end = torch.cumsum(padded, 0)
    start = end - padded
    total = int(end[-1])
    pos = torch.arange(total, device=dev)
    owner = torch.searchsorted(end, pos, right=True)
    i = pos - start[owner]
    sentinel = batches * max_tokens_per_batch
    sorted_token_ids.fill_(sentinel)
    sorted_token_ids[:total] = torch.where(i < n[owner], owner * max_tokens_per_batch + i,
                                           sentinel).to(torch.int32)
    blocks = total // block_size
    experts_ids.fill_(-1)
    first = torch.arange(blocks, device=dev) * block_size
    experts_ids[:blocks] = torch.searchsorted(end, first, right=True).to(torch.int32)
    num_tokens_post_pad.fill_(total)
