"""vLLM's own ggml_moe_a8_vec: torch.ops._C.ggml_moe_a8_vec (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_ggml_moe_a8_vec = vllm_ops.op(
    "_C", "ggml_moe_a8_vec",
    "ggml_moe_a8_vec(Tensor X, Tensor W, Tensor topk_ids, int top_k, int type, SymInt "
    "row, SymInt tokens) -> Tensor")


def ggml_moe_a8_vec(X, W, topk_ids, top_k, type, row, tokens):
    return _ggml_moe_a8_vec(X, W, topk_ids, top_k, type, row, tokens)
