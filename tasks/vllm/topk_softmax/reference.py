"""Reference for vLLM's topk_softmax (torch.ops._moe_C.topk_softmax;
csrc/moe/topk_softmax_kernels.cu, topkGatingSoftmax and the moeSoftmax + moeTopK fallback): our
own torch code, run by the worker on float64 copies (values) and on the native inputs (structure
and the GPU baseline).

topk_softmax(topk_weights, topk_indices, token_expert_indices, gating_output, renormalize) is
the router of a mixture-of-experts layer. For every token t (a row of gating_output, of
num_experts logits) it takes the softmax over the experts in float32, selects the topk largest
probabilities and writes, for j = 0 .. topk - 1 in descending order of probability:

    topk_indices[t, j]         = the expert of the j-th largest probability
    topk_weights[t, j]         = that probability (float32), divided by the sum of the topk
                                 selected probabilities when renormalize is true
    token_expert_indices[t, j] = j * num_tokens + t

Equal logits give equal probabilities; vLLM's kernels then rank the lower expert index first
(strict comparisons while scanning experts in ascending order, and an argmax that prefers the
lower index), and so does this reference (a stable descending sort). The ranking is by the
exact probabilities, which are ordered as the logits: on the float64 copies two different
logits never give equal probabilities. The cases keep float32 logits integer-valued, so that
two different logits are at least 1 apart and no float32 computation can reorder or merge them
(a continuous float32 draw could place two logits a rounding apart); float16 and bfloat16
logits are coarse enough near the top of a row.

The op returns nothing and does not modify gating_output.

Tolerance (as for softmax): each weight is a probability whose normalising sum has num_experts
terms of magnitude about 1/num_experts, so `reduce` is num_experts and `scale` 1/num_experts;
the indices are integers and exact.
"""

import torch


def topk_softmax(topk_weights: torch.Tensor, topk_indices: torch.Tensor,
                 token_expert_indices: torch.Tensor, gating_output: torch.Tensor,
                 renormalize: bool) -> None:
    acc = torch.float64 if gating_output.dtype == torch.float64 else torch.float32
    num_tokens, topk = topk_weights.shape
    probs = torch.softmax(gating_output.to(acc), dim=-1)
    values, experts = torch.sort(probs, dim=-1, descending=True, stable=True)
    values, experts = values[:, :topk], experts[:, :topk]
    if renormalize:
        values = values / values.sum(dim=-1, keepdim=True)
    topk_weights.copy_(values)
    topk_indices.copy_(experts)
    rank = torch.arange(topk, device=gating_output.device, dtype=torch.int64)
    token = torch.arange(num_tokens, device=gating_output.device, dtype=torch.int64)
    token_expert_indices.copy_(rank[None, :] * num_tokens + token[:, None])
