"""vLLM's own fused_qk_norm_rope: torch.ops._C.fused_qk_norm_rope (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_fused_qk_norm_rope = vllm_ops.op(
    "_C", "fused_qk_norm_rope",
    "fused_qk_norm_rope(Tensor! qkv, int num_heads_q, int num_heads_k, int num_heads_v, "
    "int head_dim, float eps, Tensor q_weight, Tensor k_weight, Tensor cos_sin_cache, "
    "bool is_neox, Tensor position_ids) -> ()")


def fused_qk_norm_rope(qkv, num_heads_q, num_heads_k, num_heads_v, head_dim, eps, q_weight,
                       k_weight, cos_sin_cache, is_neox, position_ids):
    _fused_qk_norm_rope(qkv, num_heads_q, num_heads_k, num_heads_v, head_dim, eps, q_weight,
                        k_weight, cos_sin_cache, is_neox, position_ids)
