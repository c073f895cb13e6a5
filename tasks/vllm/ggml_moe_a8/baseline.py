"""vLLM's own ggml_moe_a8: torch.ops._C.ggml_moe_a8 (runtime/vllm_ops.py), the task's arguments
passed straight through in its order.
"""

from runtime import vllm_ops

_ggml_moe_a8 = vllm_ops.op(
    "_C", "ggml_moe_a8",
    "ggml_moe_a8(Tensor X, Tensor W, Tensor sorted_token_ids, Tensor expert_ids, Tensor "
    "num_tokens_post_padded, int type, SymInt row, SymInt top_k, SymInt tokens) -> Tensor")


def ggml_moe_a8(X, W, sorted_token_ids, expert_ids, num_tokens_post_padded, type, row, top_k,
                tokens):
    return _ggml_moe_a8(X, W, sorted_token_ids, expert_ids, num_tokens_post_padded, type, row,
                        top_k, tokens)
