"""Reference for vLLM's moe_lora_align_block_size (torch.ops._moe_C.moe_lora_align_block_size;
csrc/moe/moe_lora_align_sum_kernels.cu, moe_lora_align_sum_kernel, and its later form on the
shared kernels of csrc/moe/moe_align_sum_kernels.cu with the expert map): our own torch code,
run by the worker on the inputs as they are (every tensor is an integer tensor) for the values,
the structure and the GPU baseline.

moe_lora_align_block_size is moe_align_block_size once per LoRA adapter, for the fused MoE-LoRA
kernels: the (token, expert) pairs of the tokens served by adapter l are grouped by expert into
adapter l's own slice of the outputs. topk_ids is [num_tokens, topk]; the pair of flat index
i = t * topk + j has expert e = topk_ids[t, j] (or maybe_expert_map[e], a global-to-local map
where -1 drops the pair) and adapter token_lora_mapping[t] (-1: the base model, no adapter).
With P = max_num_tokens_padded and MB = max_num_m_blocks, for every slot s < max_loras with
l = lora_ids[s] != -1 and adapter_enabled[l] != 0:

    count[e], padded[e] = ceil(count[e] / block_size) * block_size and start[e] (the padded
    segments in ascending expert order) over the pairs of adapter l only;
    sorted_token_ids[l * P + start[e] + r] = i    for the r-th pair of adapter l and expert e,
                                                  in ascending flat index
    sorted_token_ids[l * P + p] = numel           at every other p < P (numel =
                                                  topk_ids.numel(), the padding value)
    experts_ids[l * MB + b] = e                   for the blocks of the segment of e
    experts_ids[l * MB + b] = -1                  for every other b < MB
    num_tokens_post_pad[l] = the sum of padded[e]

The slices of the other adapters (slot -1, or adapter disabled) are not written: they keep
whatever they held. Order inside a segment: vLLM's first kernel for this op (one thread per
contiguous range of pairs) keeps ascending flat index; its later form scatters with atomics,
whose order is undefined; this task fixes ascending flat index. The op returns nothing and
modifies none of topk_ids, token_lora_mapping, adapter_enabled, lora_ids and maybe_expert_map
(vLLM's schema marks adapter_enabled and lora_ids as written, but the kernels only read them).
Every output is int32 and compared exactly.
"""

import torch


def moe_lora_align_block_size(topk_ids: torch.Tensor, token_lora_mapping: torch.Tensor,
                              num_experts: int, block_size: int, max_loras: int,
                              max_num_tokens_padded: int, max_num_m_blocks: int,
                              sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                              num_tokens_post_pad: torch.Tensor, adapter_enabled: torch.Tensor,
                              lora_ids: torch.Tensor,
                              maybe_expert_map: torch.Tensor | None) -> None:
    dev = topk_ids.device
    num_tokens, topk = topk_ids.shape
    flat = topk_ids.reshape(-1).to(torch.int64)
    numel = flat.numel()
    experts = flat
    if maybe_expert_map is not None:
        experts = maybe_expert_map.to(torch.int64)[flat]
    adapter = token_lora_mapping[:num_tokens].to(torch.int64).repeat_interleave(topk)
    P, MB = max_num_tokens_padded, max_num_m_blocks
    for slot in range(max_loras):
        lora = int(lora_ids[slot])
        if lora == -1 or int(adapter_enabled[lora]) == 0:
            continue
        pairs = torch.nonzero((experts >= 0) & (adapter == lora)).reshape(-1)
        owner = experts[pairs]
        order = torch.sort(owner, stable=True).indices   # ascending flat index per expert
        pairs, owner = pairs[order], owner[order]
        count = torch.bincount(owner, minlength=num_experts)
        padded = (count + block_size - 1) // block_size * block_size
        end = torch.cumsum(padded, 0)
        start = end - padded
        first = torch.cumsum(count, 0) - count
        rank = torch.arange(pairs.numel(), device=dev) - first[owner]
        region = sorted_token_ids[lora * P:(lora + 1) * P]
        region.fill_(numel)
        region[start[owner] + rank] = pairs.to(torch.int32)
        total = int(end[-1])
        block_start = torch.arange(MB, device=dev) * block_size
        owner_of_block = torch.searchsorted(end, block_start, right=True)
        experts_ids[lora * MB:(lora + 1) * MB] = torch.where(block_start < total,
                                                             owner_of_block, -1)
        num_tokens_post_pad[lora] = total
