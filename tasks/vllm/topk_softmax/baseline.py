"""vLLM's own topk_softmax: torch.ops._moe_C.topk_softmax (runtime/vllm_ops.py), the task's
arguments passed straight through in its order. The 5-argument schema with `renormalize`; a vLLM
with the 4- or 6-argument one is refused by the schema check.
"""

from runtime import vllm_ops

_topk_softmax = vllm_ops.op(
    "_moe_C", "topk_softmax",
    "topk_softmax(Tensor! topk_weights, Tensor! topk_indices, Tensor! "
    "token_expert_indices, Tensor gating_output, bool renormalize) -> ()")


def topk_softmax(topk_weights, topk_indices, token_expert_indices, gating_output, renormalize):
    _topk_softmax(topk_weights, topk_indices, token_expert_indices, gating_output, renormalize)
