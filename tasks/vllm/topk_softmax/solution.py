"""Shipped solution for vLLM's topk_softmax: one Triton kernel, one read of `gating_output`.

A program owns BT whole rows (tokens) of `gating_output`, padded to a power of two BN >= the
number of experts; a row is read once, as a contiguous run (coalesced). In float32 registers it
computes the row's maximum and the softmax denominator, then selects the `topk` experts one after
another: the largest logit still available, the lowest expert index among equal ones, which is
then taken out of the available set. Selecting on the logits rather than on the probabilities
ranks exactly as the softmax does (it is increasing) without the ties that rounding of the
exponentials could create. The selected weights, their experts and the (token, rank) positions
are collected in [BT, KP] tiles and stored once each; renormalisation divides by the sum of the
selected weights before that store. `topk` is a compile-time constant, so the selection loop is
unrolled.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _topk_softmax_kernel(x_ptr, w_ptr, i_ptr, s_ptr, T, N, sx, sw, si, ss,
                         TOPK: tl.constexpr, RENORM: tl.constexpr, BT: tl.constexpr,
                         BN: tl.constexpr, KP: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BT + tl.arange(0, BT)
    cols = tl.arange(0, BN)
    r_ok = rows < T
    c_ok = cols < N
    x = tl.load(x_ptr + (rows * sx)[:, None] + cols[None, :],
                mask=r_ok[:, None] & c_ok[None, :], other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    e = tl.where(c_ok[None, :], tl.exp(x - m[:, None]), 0.0)
    inv = 1.0 / tl.sum(e, axis=1)
    avail = c_ok[None, :] & (rows >= 0)[:, None]
    kcol = tl.arange(0, KP)
    w_out = tl.zeros([BT, KP], tl.float32)
    i_out = tl.zeros([BT, KP], tl.int32)
    for j in tl.static_range(TOPK):
        v = tl.max(tl.where(avail, x, float("-inf")), axis=1)
        hit = avail & (x == v[:, None])
        idx = tl.min(tl.where(hit, cols[None, :], BN), axis=1)
        avail = avail & (cols[None, :] != idx[:, None])
        w = tl.exp(v - m) * inv
        w_out = tl.where(kcol[None, :] == j, w[:, None], w_out)
        i_out = tl.where(kcol[None, :] == j, idx[:, None], i_out)
    if RENORM:
        w_out = w_out / tl.sum(w_out, axis=1)[:, None]
    o_mask = r_ok[:, None] & (kcol < TOPK)[None, :]
    tl.store(w_ptr + (rows * sw)[:, None] + kcol[None, :], w_out, mask=o_mask)
    tl.store(i_ptr + (rows * si)[:, None] + kcol[None, :], i_out, mask=o_mask)
    pos = kcol[None, :].to(tl.int64) * T + rows[:, None]
    tl.store(s_ptr + (rows * ss)[:, None] + kcol[None, :], pos.to(tl.int32), mask=o_mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def topk_softmax(topk_weights: torch.Tensor, topk_indices: torch.Tensor,
                 token_expert_indices: torch.Tensor, gating_output: torch.Tensor,
                 renormalize: bool) -> None:
    if gating_output.dim() != 2 or topk_weights.dim() != 2:
        raise ValueError("topk_softmax: gating_output must be [num_tokens, num_experts] and "
                         "the outputs [num_tokens, topk]")
    T, N = gating_output.shape
    topk = topk_weights.shape[1]
    for name, t in (("topk_weights", topk_weights), ("topk_indices", topk_indices),
                    ("token_expert_indices", token_expert_indices)):
        if tuple(t.shape) != (T, topk):
            raise ValueError(f"topk_softmax: {name} has shape {list(t.shape)}, expected "
                             f"{[T, topk]}")
        if topk and t.stride(1) != 1:
            raise ValueError(f"topk_softmax: {name} must be contiguous")
    if topk > N:
        raise ValueError(f"topk_softmax: topk {topk} exceeds num_experts {N}")
    if T == 0 or topk == 0:
        return None
    x = gating_output if gating_output.stride(1) == 1 else gating_output.contiguous()
    bn = _pow2(N)
    if x.device.type == "cpu":
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bt = min(_pow2(T), max(1, 65536 // bn))
        warps = 4
    else:
        # About 2048 logits a program (a few rows of a typical router), 4 warps.
        bt = min(_pow2(T), max(1, 2048 // bn))
        warps = 4 if bt * bn <= 2048 else 8
    _topk_softmax_kernel[(triton.cdiv(T, bt),)](
        x, topk_weights, topk_indices, token_expert_indices, T, N, x.stride(0),
        topk_weights.stride(0), topk_indices.stride(0), token_expert_indices.stride(0),
        TOPK=topk, RENORM=bool(renormalize), BT=bt, BN=bn, KP=_pow2(topk), num_warps=warps)
    return None
