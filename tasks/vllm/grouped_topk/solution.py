"""Shipped solution for vLLM's grouped_topk: one Triton kernel, one read of `scores`.

A program owns BT tokens. It loads their scores straight into a [BT, NGP, GSP] tile (groups by
experts within a group, each padded to a power of two), so a group is one row of the tile and no
reshuffling is needed. It computes the scoring function (the sigmoid evaluated on float64 and
rounded once to float32, as the task requires), then in float32 the biased selection score,
each group's two largest selection scores (the maximum, and either the maximum again when it
occurs twice or the largest value below it), the rank of every group among the token's groups
(a [BT, NGP, NGP] compare: larger score, or equal score and lower index, ranks first) and so the
kept groups, and selects the `topk` experts one after another: the largest selection score still
available, the lowest expert index among equal ones. Their unbiased scores are collected in a
[BT, KP] tile, renormalised and scaled, and stored with the indices. `topk` is a compile-time
constant, so the selection loop is unrolled.

The selection works on the [BT, NGP, GSP] tile itself (maxima and minima over both expert axes)
rather than on [BT, NGP * GSP] reshapes of the candidates, the unbiased scores and a broadcast
tile of expert ids. The shipped version used those reshapes; it passed on the interpreter but,
compiled for the H200, picked wrong experts and weights for 96 experts in 32 groups (3 per
group, padded to 4): the lanes of the separately reshaped tensors did not line up there, so the
expert found by one was not the one zeroed and weighted in the others. Nothing on the
selection path depends on a reshape now.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _grouped_topk_kernel(x_ptr, bias_ptr, w_ptr, i_ptr, T, sx, n_group, group_size, topk_group,
                         scale, TOPK: tl.constexpr, KP: tl.constexpr, SIGMOID: tl.constexpr,
                         RENORM: tl.constexpr, BT: tl.constexpr, NGP: tl.constexpr,
                         GSP: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    r_ok = rows < T
    g = tl.arange(0, NGP)
    j = tl.arange(0, GSP)
    g_ok = g < n_group
    e_ok = g_ok[:, None] & (j < group_size)[None, :]
    expert = g[:, None] * group_size + j[None, :]
    m3 = r_ok[:, None, None] & e_ok[None, :, :]
    x = tl.load(x_ptr + rows[:, None, None] * sx + expert[None, :, :], mask=m3,
                other=0.0).to(tl.float32)
    if SIGMOID:
        # The task fixes s to the correctly rounded float32 sigmoid: evaluate it on float64.
        xd = x.to(tl.float64)
        s = (1.0 / (1.0 + tl.exp(-xd))).to(tl.float32)
    else:
        s = x
    b = tl.load(bias_ptr + expert, mask=e_ok, other=0.0).to(tl.float32)
    neg = float("-inf")
    big = 2147483647
    v = tl.where(e_ok[None, :, :], s + b[None, :, :], neg)
    # Each group's two largest selection scores.
    top1 = tl.max(v, axis=2)
    n_top = tl.sum((v == top1[:, :, None]).to(tl.int32), axis=2)
    below = tl.max(tl.where(v < top1[:, :, None], v, neg), axis=2)
    top2 = tl.where(n_top >= 2, top1, below)
    score = tl.where(g_ok[None, :], top1 + top2, neg)
    # Rank of group g: the groups that beat it (larger score, or equal and lower index).
    beats = (score[:, None, :] > score[:, :, None]) | \
        ((score[:, None, :] == score[:, :, None]) & (g[None, None, :] < g[None, :, None]))
    rank = tl.sum((beats & g_ok[None, None, :]).to(tl.int32), axis=2)
    kept = (rank < topk_group) & g_ok[None, :]
    # The selection stays on the [BT, NGP, GSP] tile (two-level reductions), with no reshape
    # to [BT, NGP * GSP]: the compiled reshapes of the candidates, the scores and the
    # (broadcast) expert ids need not keep their elements in step on the GPU.
    cand = tl.where(kept[:, :, None], v, neg)
    ids = tl.where(e_ok, expert, big)[None, :, :]
    kcol = tl.arange(0, KP)
    w_out = tl.zeros([BT, KP], tl.float32)
    i_out = tl.zeros([BT, KP], tl.int32)
    for t in tl.static_range(TOPK):
        best = tl.max(tl.max(cand, axis=2), axis=1)
        idx = tl.min(tl.min(tl.where(cand == best[:, None, None], ids, big), axis=2), axis=1)
        hit = ids == idx[:, None, None]
        w = tl.sum(tl.sum(tl.where(hit, s, 0.0), axis=2), axis=1)
        cand = tl.where(hit, neg, cand)
        w_out = tl.where(kcol[None, :] == t, w[:, None], w_out)
        i_out = tl.where(kcol[None, :] == t, idx[:, None], i_out)
    if RENORM:
        w_out = w_out / (tl.sum(w_out, axis=1) + 1e-20)[:, None] * scale
    else:
        w_out = w_out * scale
    o_mask = r_ok[:, None] & (kcol < TOPK)[None, :]
    tl.store(w_ptr + rows[:, None] * TOPK + kcol[None, :], w_out, mask=o_mask)
    tl.store(i_ptr + rows[:, None] * TOPK + kcol[None, :], i_out, mask=o_mask)


def grouped_topk(scores: torch.Tensor, n_group: int, topk_group: int, topk: int,
                 renormalize: bool, routed_scaling_factor: float, bias: torch.Tensor,
                 scoring_func: int) -> tuple[torch.Tensor, torch.Tensor]:
    if scores.dim() != 2:
        raise ValueError("grouped_topk: scores must be [num_tokens, num_experts]")
    num_tokens, num_experts = scores.shape
    if scoring_func not in (0, 1):
        raise ValueError(f"grouped_topk: scoring_func must be 0 or 1, got {scoring_func}")
    if not 0 < n_group <= 32 or num_experts % n_group:
        raise ValueError(f"grouped_topk: n_group {n_group} must divide num_experts "
                         f"{num_experts} and be at most 32")
    group_size = num_experts // n_group
    if not 0 < topk_group <= n_group or not 0 < topk <= min(32, topk_group * group_size):
        raise ValueError(f"grouped_topk: topk_group {topk_group} / topk {topk} out of range")
    if group_size < 2:
        raise ValueError("grouped_topk: every group needs at least two experts")
    if bias.numel() != num_experts:
        raise ValueError("grouped_topk: bias must have num_experts entries")
    x = scores if scores.stride(1) == 1 else scores.contiguous()
    b = bias if bias.is_contiguous() else bias.contiguous()
    values = torch.empty((num_tokens, topk), dtype=torch.float32, device=scores.device)
    indices = torch.empty((num_tokens, topk), dtype=torch.int32, device=scores.device)
    if num_tokens == 0:
        return values, indices
    ngp = triton.next_power_of_2(n_group)
    gsp = triton.next_power_of_2(group_size)
    width = ngp * gsp
    # About 4096 scores a program on the GPU; the interpreter runs programs one by one, so it
    # gets fewer, larger tiles.
    budget = 65536 if scores.device.type == "cpu" else 4096
    bt = min(triton.next_power_of_2(num_tokens), max(1, budget // width))
    _grouped_topk_kernel[(triton.cdiv(num_tokens, bt),)](
        x, b, values, indices, num_tokens, x.stride(0), n_group, group_size, topk_group,
        float(routed_scaling_factor), TOPK=topk, KP=triton.next_power_of_2(topk),
        SIGMOID=scoring_func == 1, RENORM=bool(renormalize), BT=bt, NGP=ngp, GSP=gsp,
        num_warps=4 if bt * width <= 2048 else 8)
    return values, indices
