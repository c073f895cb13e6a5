"""Reference for vLLM's grouped_topk (torch.ops._moe_C.grouped_topk;
csrc/moe/grouped_topk_kernels.cu, topk_with_k2_kernel and group_idx_and_topk_idx_kernel, the
form with `bias` and `scoring_func`): our own torch code, run by the worker on float64 copies
(values) and on the native inputs (structure and the GPU baseline).

grouped_topk(scores, n_group, topk_group, topk, renormalize, routed_scaling_factor, bias,
scoring_func) is the group-limited router of DeepSeek-V3-style MoE layers ("noaux_tc"). For
every token (a row of scores, [num_tokens, num_experts]), in float32:

    s[e] = sigmoid(scores[e]) if scoring_func == 1, the float32 value nearest to the exact
           sigmoid (evaluated in float64 and rounded once); s[e] = scores[e] if scoring_func == 0
    v[e] = s[e] + bias[e]                      (the selection score, one float32 addition)
    group g = experts g * G .. g * G + G - 1, G = num_experts / n_group;
    group_score[g] = the sum of the two largest v[e] of the group (one float32 addition)
    the topk_group groups with the largest group_score are kept (equal scores: lower group
    index first); among their experts, the topk with the largest v[e] are selected, in
    descending order of v (equal v: lower expert index first):
    topk_indices[t, j] = the j-th selected expert (int32)
    topk_values[t, j]  = s of that expert (without the bias), divided by
                         (1e-20 + the sum of the topk selected s) when renormalize,
                         times routed_scaling_factor (float32)

The function returns (topk_values, topk_indices) and modifies nothing.

Precision: the selection is a discontinuous function of s, so the task fixes every selection
input bit for bit: s is the correctly rounded float32 sigmoid, and v and the group scores are
single float32 additions, which any IEEE implementation reproduces exactly. Any kernel that
follows these rules therefore makes exactly this reference's choices, ties included; a float32
sigmoid (a few units in the last place off) would flip a choice between two groups or experts
about once per 10^5 tokens, which an exact index comparison cannot tolerate. This reference
converts its inputs to float32 first (the float64 copies included) and evaluates the sigmoid on
float64. vLLM's kernel evaluates the sigmoid in float32 (0.5 * tanh(0.5 x) + 0.5) and rounds s,
s + bias and the group sums to the scores' dtype (float16, bfloat16), which can merge values
that float32 keeps apart; both are deliberate differences of this task.

Tolerance: topk_values are float32 results of a sum of `topk` terms (`reduce` is topk); the
indices are integers and exact.
"""

import torch


def grouped_topk(scores: torch.Tensor, n_group: int, topk_group: int, topk: int,
                 renormalize: bool, routed_scaling_factor: float, bias: torch.Tensor,
                 scoring_func: int) -> tuple[torch.Tensor, torch.Tensor]:
    if scoring_func not in (0, 1):
        raise ValueError(f"grouped_topk: scoring_func must be 0 or 1, got {scoring_func}")
    x = scores.to(torch.float32)
    s = torch.sigmoid(x.to(torch.float64)).to(torch.float32) if scoring_func == 1 else x
    v = s + bias.to(torch.float32)
    num_tokens, num_experts = v.shape
    size = num_experts // n_group
    top2 = torch.topk(v.view(num_tokens, n_group, size), 2, dim=-1).values
    group_score = top2[..., 0] + top2[..., 1]
    kept = torch.sort(group_score, dim=-1, descending=True, stable=True).indices[:, :topk_group]
    keep = torch.zeros(num_tokens, n_group, dtype=torch.bool, device=v.device)
    keep.scatter_(1, kept, True)
    candidates = torch.where(keep.repeat_interleave(size, dim=1), v, float("-inf"))
    chosen = torch.sort(candidates, dim=-1, descending=True, stable=True).indices[:, :topk]
    values = s.gather(1, chosen)
    if renormalize:
        values = values / (values.sum(dim=-1, keepdim=True) + 1e-20)
    values = values * routed_scaling_factor
    return values, chosen.to(torch.int32)
