"""vLLM's own batched_moe_align_block_size: torch.ops._moe_C.batched_moe_align_block_size
(runtime/vllm_ops.py), the task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_batched_moe_align_block_size = vllm_ops.op(
    "_moe_C", "batched_moe_align_block_size",
    "batched_moe_align_block_size(int max_tokens_per_batch, int block_size, Tensor "
    "expert_num_tokens, Tensor! sorted_token_ids, Tensor! experts_ids, Tensor! "
    "num_tokens_post_pad) -> ()")


def batched_moe_align_block_size(max_tokens_per_batch, block_size, expert_num_tokens,
                                 sorted_token_ids, experts_ids, num_tokens_post_pad):
    _batched_moe_align_block_size(max_tokens_per_batch, block_size, expert_num_tokens,
                                  sorted_token_ids, experts_ids, num_tokens_post_pad)
