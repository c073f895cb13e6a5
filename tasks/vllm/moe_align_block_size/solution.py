"""Shipped solution for vLLM's moe_align_block_size: a stable counting sort in three kernels.

1. `_count_kernel`: the flat pairs are cut into chunks of BLOCK; each program histograms its
   chunk's experts (after the optional expert map; pairs mapped to -1 are left out) into one row
   of a [num_chunks, E_PAD] count table, and fills its share of `sorted_token_ids` with the
   padding value numel (the pairs are scattered over it afterwards).
2. `_scan_kernel` (one program): per-expert totals, the padded segment starts (an exclusive
   cumulative sum over experts), `num_tokens_post_pad`, `experts_ids` (the expert whose segment
   holds each block's first position, 0 past the last segment), and for every chunk and expert
   the first slot its pairs go to: the segment start plus the pairs of that expert in earlier
   chunks (an exclusive cumulative sum over chunks, carried from tile to tile).
3. `_scatter_kernel`: each program ranks the pairs of its chunk among the earlier pairs of the
   same expert in the chunk (a [BLOCK, BLOCK] lower-triangular compare), adds its chunk's slot
   and writes the flat index there. Ranks follow the flat index, so each expert's pairs end up
   in ascending order, which is the order the task fixes.

Every kernel reads the ids once, coalesced; the only gathers are the expert map and the count
table rows, both small. The op is latency-bound (three launches and a one-program scan).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(ids_ptr, map_ptr, counts_ptr, sorted_ptr, numel, n_sorted, fill_per_prog,
                  HAS_MAP: tl.constexpr, BLOCK: tl.constexpr, E_PAD: tl.constexpr,
                  FILL: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inb = offs < numel
    e = tl.load(ids_ptr + offs, mask=inb, other=0).to(tl.int32)
    if HAS_MAP:
        e = tl.load(map_ptr + e, mask=inb, other=-1)
    valid = inb & (e >= 0)
    hist = tl.histogram(e, E_PAD, mask=valid)
    tl.store(counts_ptr + pid * E_PAD + tl.arange(0, E_PAD), hist)
    lo = pid * fill_per_prog
    hi = tl.minimum(lo + fill_per_prog, n_sorted)
    pad = tl.full([FILL], 0, tl.int32) + numel
    for s in range(lo, hi, FILL):
        f = s + tl.arange(0, FILL)
        tl.store(sorted_ptr + f, pad, mask=f < hi)


@triton.jit
def _scan_kernel(counts_ptr, offsets_ptr, experts_ids_ptr, post_pad_ptr, n_chunks, num_experts,
                 block_size, n_blocks, E_PAD: tl.constexpr, CT: tl.constexpr,
                 MT: tl.constexpr):
    cols = tl.arange(0, E_PAD)
    rows = tl.arange(0, CT)
    totals = tl.zeros([E_PAD], tl.int32)
    for c0 in range(0, n_chunks, CT):
        r = c0 + rows
        tile = tl.load(counts_ptr + r[:, None] * E_PAD + cols[None, :],
                       mask=(r < n_chunks)[:, None], other=0)
        totals += tl.sum(tile, axis=0)
    padded = (totals + block_size - 1) // block_size * block_size
    end = tl.cumsum(padded, axis=0)
    total = tl.sum(padded, axis=0)
    tl.store(post_pad_ptr, total)
    carry = end - padded
    for c0 in range(0, n_chunks, CT):
        r = c0 + rows
        rmask = (r < n_chunks)[:, None]
        tile = tl.load(counts_ptr + r[:, None] * E_PAD + cols[None, :], mask=rmask, other=0)
        first = tl.cumsum(tile, axis=0) - tile + carry[None, :]
        tl.store(offsets_ptr + r[:, None] * E_PAD + cols[None, :], first, mask=rmask)
        carry += tl.sum(tile, axis=0)
    real = (cols < num_experts)[None, :]
    for m0 in range(0, n_blocks, MT):
        m = m0 + tl.arange(0, MT)
        pos = m * block_size
        # The segment holding `pos` belongs to the number of experts whose segments end at or
        # before it (empty segments end where they start, so they are counted and skipped).
        before = tl.sum(((end[None, :] <= pos[:, None]) & real).to(tl.int32), axis=1)
        tl.store(experts_ids_ptr + m, tl.where(pos < total, before, 0), mask=m < n_blocks)


@triton.jit
def _scatter_kernel(ids_ptr, map_ptr, offsets_ptr, sorted_ptr, numel, HAS_MAP: tl.constexpr,
                    BLOCK: tl.constexpr, E_PAD: tl.constexpr):
    pid = tl.program_id(0)
    lane = tl.arange(0, BLOCK)
    offs = pid * BLOCK + lane
    inb = offs < numel
    e = tl.load(ids_ptr + offs, mask=inb, other=0).to(tl.int32)
    if HAS_MAP:
        e = tl.load(map_ptr + e, mask=inb, other=-1)
    valid = inb & (e >= 0)
    e = tl.where(valid, e, -1)
    same_before = (e[:, None] == e[None, :]) & (lane[None, :] < lane[:, None])
    rank = tl.sum(same_before.to(tl.int32), axis=1)
    first = tl.load(offsets_ptr + pid * E_PAD + e, mask=valid, other=0)
    tl.store(sorted_ptr + first + rank, offs.to(tl.int32), mask=valid)


def moe_align_block_size(topk_ids: torch.Tensor, num_experts: int, block_size: int,
                         sorted_token_ids: torch.Tensor, experts_ids: torch.Tensor,
                         num_tokens_post_pad: torch.Tensor,
                         maybe_expert_map: torch.Tensor | None) -> None:
    if block_size <= 0:
        raise ValueError(f"moe_align_block_size: block_size must be positive, got {block_size}")
    if not 0 < num_experts < 1024:
        raise ValueError(f"moe_align_block_size: num_experts must be in [1, 1023], got "
                         f"{num_experts}")
    for name, t in (("sorted_token_ids", sorted_token_ids), ("experts_ids", experts_ids),
                    ("num_tokens_post_pad", num_tokens_post_pad)):
        if t.dtype != torch.int32 or not t.is_contiguous():
            raise ValueError(f"moe_align_block_size: {name} must be a contiguous int32 tensor")
    ids = topk_ids if topk_ids.is_contiguous() else topk_ids.contiguous()
    emap = maybe_expert_map
    if emap is not None and (emap.dtype != torch.int32 or not emap.is_contiguous()):
        raise ValueError("moe_align_block_size: maybe_expert_map must be a contiguous int32 "
                         "tensor")
    numel = ids.numel()
    n_sorted = sorted_token_ids.numel()
    n_blocks = experts_ids.numel()
    e_pad = triton.next_power_of_2(num_experts)
    on_cpu = ids.device.type == "cpu"
    # The chunk is the side of the scatter's rank tile: 256 x 256 on the GPU (8 warps); the
    # interpreter runs programs one by one, so it gets fewer, larger chunks.
    block = 512 if on_cpu else 256
    n_chunks = max(1, triton.cdiv(numel, block))
    fill_per_prog = triton.cdiv(n_sorted, n_chunks)
    counts = torch.empty((n_chunks, e_pad), dtype=torch.int32, device=ids.device)
    offsets = torch.empty((n_chunks, e_pad), dtype=torch.int32, device=ids.device)
    map_arg = emap if emap is not None else ids
    _count_kernel[(n_chunks,)](ids, map_arg, counts, sorted_token_ids, numel, n_sorted,
                               fill_per_prog, HAS_MAP=emap is not None, BLOCK=block,
                               E_PAD=e_pad, FILL=1024, num_warps=4)
    tile = 16384 if on_cpu else 8192
    _scan_kernel[(1,)](counts, offsets, experts_ids, num_tokens_post_pad, n_chunks, num_experts,
                       block_size, n_blocks, E_PAD=e_pad, CT=max(1, tile // e_pad),
                       MT=max(1, tile // e_pad), num_warps=8)
    _scatter_kernel[(n_chunks,)](ids, map_arg, offsets, sorted_token_ids, numel,
                                 HAS_MAP=emap is not None, BLOCK=block, E_PAD=e_pad,
                                 num_warps=8)
    return None
