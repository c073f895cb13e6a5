"""Reference for vLLM's moe_align_block_size (torch.ops._moe_C.moe_align_block_size;
csrc/moe/moe_align_sum_kernels.cu, moe_align_block_size and its kernels): our own torch code,
run by the worker on the inputs as they are (every tensor is an integer tensor, so the float64
copies are the native ones) for the values, the structure and the GPU baseline.

moe_align_block_size(topk_ids, num_experts, block_size, sorted_token_ids, experts_ids,
num_tokens_post_pad, maybe_expert_map) groups the (token, expert) pairs of a mixture-of-experts
layer by expert, for the block-wise expert GEMM that follows. topk_ids is [num_tokens, topk];
its flat (row-major) index i = t * topk + j names the pair of token t and its j-th expert
e = topk_ids[t, j]. With maybe_expert_map (EP: a global-to-local map of num_experts int32
entries), the pair's expert is maybe_expert_map[e] instead, and a pair whose expert maps to -1
is dropped (it belongs to another rank). Let count[e] be the number of pairs of expert e and
padded[e] = ceil(count[e] / block_size) * block_size. The experts' segments are laid out in
ascending expert order, start[e] = padded[0] + ... + padded[e - 1], and the op writes:

    sorted_token_ids[start[e] + r] = i   for the r-th pair (in ascending flat index) of expert e
    sorted_token_ids[p] = numel          at every other position p (numel = topk_ids.numel():
                                         the padding of each segment and everything past the
                                         last one, to the end of the buffer)
    experts_ids[b] = e                   for every block b of block_size positions inside the
                                         segment of e (b = start[e] / block_size, ...)
    experts_ids[b] = 0                   for every block past the last segment
    num_tokens_post_pad[0] = padded[0] + ... + padded[num_experts - 1]

Order inside a segment: vLLM scatters with atomics on large inputs, so the order of the pairs
of one expert is not defined there (its small-input kernel happens to keep an order of its own);
this task fixes it to ascending flat index (a stable counting sort), which is a valid vLLM
output and makes the comparison exact.

The op returns nothing and does not modify topk_ids or maybe_expert_map. Every output is int32
and is compared exactly.
"""

import torch


def moe_align_block_size(topk_ids: torch.Tensor, num_experts: int, block_size: int,
                         sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                         num_tokens_post_pad: torch.Tensor,
                         maybe_expert_map: torch.Tensor | None) -> None:
    dev = topk_ids.device
    flat = topk_ids.reshape(-1).to(torch.int64)
    numel = flat.numel()
    experts = flat
    if maybe_expert_map is not None:
        experts = maybe_expert_map.to(torch.int64)[flat]
    pairs = torch.nonzero(experts >= 0).reshape(-1)          # ascending flat index
    owner = experts[pairs]
    # A stable sort by expert keeps each expert's pairs in ascending flat index.
    order = torch.sort(owner, stable=True).indices
    pairs, owner = pairs[order], owner[order]
    count = torch.bincount(owner, minlength=num_experts)
    padded = (count + block_size - 1) // block_size * block_size
    end = torch.cumsum(padded, 0)
    start = end - padded
    first = torch.cumsum(count, 0) - count                      # first sorted slot of e
    rank = torch.arange(pairs.numel(), device=dev) - first[owner]
    sorted_token_ids.fill_(numel)
    sorted_token_ids[start[owner] + rank] = pairs.to(torch.int32)
    total = int(end[-1]) if num_experts else 0
    block_start = torch.arange(experts_ids.numel(), device=dev) * block_size
    owner_of_block = torch.searchsorted(end, block_start, right=True)
    experts_ids.copy_(torch.where(block_start < total, owner_of_block, 0))
    num_tokens_post_pad.fill_(total)
