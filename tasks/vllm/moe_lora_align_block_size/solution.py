"""Shipped solution for vLLM's moe_lora_align_block_size: a stable counting sort per adapter.

The three kernels of moe_align_block_size's solution, with a second grid dimension over the
adapter slots. Every program first reads its slot's adapter l = lora_ids[slot] and returns at
once when the slot is -1 or the adapter is disabled, so nothing of such an adapter's slice is
written.

1. `_count_kernel` (chunks x slots): histograms the experts of the chunk's pairs that belong to
   adapter l (token_lora_mapping of the pair's token, read once per pair) into the slot's
   [num_chunks, E_PAD] count table, and fills its share of adapter l's `sorted_token_ids` slice
   with the padding value numel.
2. `_scan_kernel` (slots): per-expert totals, padded segment starts, `num_tokens_post_pad[l]`,
   adapter l's `experts_ids` slice (-1 past the last segment), and the first slot of every
   (chunk, expert) in the sorted slice.
3. `_scatter_kernel` (chunks x slots): ranks each pair among the earlier pairs of the same
   expert and adapter in its chunk (a [BLOCK, BLOCK] lower-triangular compare) and writes its
   flat index; the ranks follow the flat index, the order the task fixes.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adapter(lora_ids_ptr, enabled_ptr, slot):
    lora = tl.load(lora_ids_ptr + slot)
    on = tl.load(enabled_ptr + tl.maximum(lora, 0))
    return lora, (lora != -1) & (on != 0)


@triton.jit
def _pair_experts(ids_ptr, map_ptr, tok_lora_ptr, offs, numel, topk, lora,
                  HAS_MAP: tl.constexpr):
    """The expert of each pair in `offs` that belongs to `lora`, -1 for every other lane."""
    inb = offs < numel
    e = tl.load(ids_ptr + offs, mask=inb, other=0).to(tl.int32)
    if HAS_MAP:
        e = tl.load(map_ptr + e, mask=inb, other=-1)
    owner = tl.load(tok_lora_ptr + offs // topk, mask=inb, other=-1)
    return tl.where(inb & (e >= 0) & (owner == lora), e, -1)


@triton.jit
def _count_kernel(ids_ptr, map_ptr, tok_lora_ptr, lora_ids_ptr, enabled_ptr, counts_ptr,
                  sorted_ptr, numel, topk, n_chunks, P, fill_per_prog, HAS_MAP: tl.constexpr,
                  BLOCK: tl.constexpr, E_PAD: tl.constexpr, FILL: tl.constexpr):
    pid = tl.program_id(0)
    slot = tl.program_id(1)
    lora, active = _adapter(lora_ids_ptr, enabled_ptr, slot)
    if active:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        e = _pair_experts(ids_ptr, map_ptr, tok_lora_ptr, offs, numel, topk, lora, HAS_MAP)
        hist = tl.histogram(e, E_PAD, mask=e >= 0)
        row = (slot * n_chunks + pid).to(tl.int64) * E_PAD
        tl.store(counts_ptr + row + tl.arange(0, E_PAD), hist)
        base = sorted_ptr + lora.to(tl.int64) * P
        lo = pid * fill_per_prog
        hi = tl.minimum(lo + fill_per_prog, P)
        pad = tl.full([FILL], 0, tl.int32) + numel
        for s in range(lo, hi, FILL):
            f = s + tl.arange(0, FILL)
            tl.store(base + f, pad, mask=f < hi)


@triton.jit
def _scan_kernel(lora_ids_ptr, enabled_ptr, counts_ptr, offsets_ptr, experts_ids_ptr,
                 post_pad_ptr, n_chunks, num_experts, block_size, MB, E_PAD: tl.constexpr,
                 CT: tl.constexpr, MT: tl.constexpr):
    slot = tl.program_id(0)
    lora, active = _adapter(lora_ids_ptr, enabled_ptr, slot)
    if active:
        cols = tl.arange(0, E_PAD)
        rows = tl.arange(0, CT)
        table = slot.to(tl.int64) * n_chunks * E_PAD
        totals = tl.zeros([E_PAD], tl.int32)
        for c0 in range(0, n_chunks, CT):
            r = c0 + rows
            tile = tl.load(counts_ptr + table + r[:, None] * E_PAD + cols[None, :],
                           mask=(r < n_chunks)[:, None], other=0)
            totals += tl.sum(tile, axis=0)
        padded = (totals + block_size - 1) // block_size * block_size
        end = tl.cumsum(padded, axis=0)
        total = tl.sum(padded, axis=0)
        tl.store(post_pad_ptr + lora, total)
        carry = end - padded
        for c0 in range(0, n_chunks, CT):
            r = c0 + rows
            rmask = (r < n_chunks)[:, None]
            where = table + r[:, None] * E_PAD + cols[None, :]
            tile = tl.load(counts_ptr + where, mask=rmask, other=0)
            tl.store(offsets_ptr + where, tl.cumsum(tile, axis=0) - tile + carry[None, :],
                     mask=rmask)
            carry += tl.sum(tile, axis=0)
        real = (cols < num_experts)[None, :]
        out = experts_ids_ptr + lora.to(tl.int64) * MB
        for m0 in range(0, MB, MT):
            m = m0 + tl.arange(0, MT)
            pos = m * block_size
            # The segment holding `pos` belongs to the number of experts whose segments end at
            # or before it (empty segments end where they start: counted and skipped).
            before = tl.sum(((end[None, :] <= pos[:, None]) & real).to(tl.int32), axis=1)
            tl.store(out + m, tl.where(pos < total, before, -1), mask=m < MB)


@triton.jit
def _scatter_kernel(ids_ptr, map_ptr, tok_lora_ptr, lora_ids_ptr, enabled_ptr, offsets_ptr,
                    sorted_ptr, numel, topk, n_chunks, P, HAS_MAP: tl.constexpr,
                    BLOCK: tl.constexpr, E_PAD: tl.constexpr):
    pid = tl.program_id(0)
    slot = tl.program_id(1)
    lora, active = _adapter(lora_ids_ptr, enabled_ptr, slot)
    if active:
        lane = tl.arange(0, BLOCK)
        offs = pid * BLOCK + lane
        e = _pair_experts(ids_ptr, map_ptr, tok_lora_ptr, offs, numel, topk, lora, HAS_MAP)
        valid = e >= 0
        same_before = (e[:, None] == e[None, :]) & (lane[None, :] < lane[:, None])
        rank = tl.sum(same_before.to(tl.int32), axis=1)
        row = (slot * n_chunks + pid).to(tl.int64) * E_PAD
        first = tl.load(offsets_ptr + row + e, mask=valid, other=0)
        base = sorted_ptr + lora.to(tl.int64) * P
        tl.store(base + first + rank, offs.to(tl.int32), mask=valid)


def moe_lora_align_block_size(topk_ids: torch.Tensor, token_lora_mapping: torch.Tensor,
                              num_experts: int, block_size: int, max_loras: int,
                              max_num_tokens_padded: int, max_num_m_blocks: int,
                              sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                              num_tokens_post_pad: torch.Tensor, adapter_enabled: torch.Tensor,
                              lora_ids: torch.Tensor,
                              maybe_expert_map: torch.Tensor | None) -> None:
    if block_size <= 0:
        raise ValueError(f"moe_lora_align_block_size: block_size must be positive, got "
                         f"{block_size}")
    if not 0 < num_experts < 1024:
        raise ValueError(f"moe_lora_align_block_size: num_experts must be in [1, 1023], got "
                         f"{num_experts}")
    if topk_ids.dim() != 2:
        raise ValueError("moe_lora_align_block_size: topk_ids must be [num_tokens, topk]")
    for name, t in (("sorted_token_ids", sorted_token_ids), ("experts_ids", experts_ids),
                    ("num_tokens_post_pad", num_tokens_post_pad),
                    ("token_lora_mapping", token_lora_mapping),
                    ("adapter_enabled", adapter_enabled), ("lora_ids", lora_ids)):
        if t.dtype != torch.int32 or not t.is_contiguous():
            raise ValueError(f"moe_lora_align_block_size: {name} must be a contiguous int32 "
                             "tensor")
    if sorted_token_ids.numel() < max_loras * max_num_tokens_padded or \
            experts_ids.numel() < max_loras * max_num_m_blocks:
        raise ValueError("moe_lora_align_block_size: output buffers smaller than max_loras "
                         "slices")
    emap = maybe_expert_map
    if emap is not None and (emap.dtype != torch.int32 or not emap.is_contiguous()):
        raise ValueError("moe_lora_align_block_size: maybe_expert_map must be a contiguous "
                         "int32 tensor")
    if max_loras <= 0:
        return None
    ids = topk_ids if topk_ids.is_contiguous() else topk_ids.contiguous()
    numel = ids.numel()
    topk = ids.shape[1]
    e_pad = triton.next_power_of_2(num_experts)
    on_cpu = ids.device.type == "cpu"
    # The chunk is the side of the scatter's rank tile: 256 x 256 on the GPU (8 warps); the
    # interpreter runs programs one by one, so it gets fewer, larger chunks.
    block = 512 if on_cpu else 256
    n_chunks = max(1, triton.cdiv(numel, block))
    counts = torch.empty((max_loras, n_chunks, e_pad), dtype=torch.int32, device=ids.device)
    offsets = torch.empty((max_loras, n_chunks, e_pad), dtype=torch.int32, device=ids.device)
    map_arg = emap if emap is not None else ids
    has_map = emap is not None
    _count_kernel[(n_chunks, max_loras)](
        ids, map_arg, token_lora_mapping, lora_ids, adapter_enabled, counts, sorted_token_ids,
        numel, topk, n_chunks, max_num_tokens_padded,
        triton.cdiv(max_num_tokens_padded, n_chunks), HAS_MAP=has_map, BLOCK=block,
        E_PAD=e_pad, FILL=1024, num_warps=4)
    tile = 16384 if on_cpu else 8192
    _scan_kernel[(max_loras,)](
        lora_ids, adapter_enabled, counts, offsets, experts_ids, num_tokens_post_pad, n_chunks,
        num_experts, block_size, max_num_m_blocks, E_PAD=e_pad, CT=max(1, tile // e_pad),
        MT=max(1, tile // e_pad), num_warps=8)
    _scatter_kernel[(n_chunks, max_loras)](
        ids, map_arg, token_lora_mapping, lora_ids, adapter_enabled, offsets, sorted_token_ids,
        numel, topk, n_chunks, max_num_tokens_padded, HAS_MAP=has_map, BLOCK=block,
        E_PAD=e_pad, num_warps=8)
    return None
