"""vLLM's own copy_blocks: torch.ops._C_cache_ops.copy_blocks (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_copy_blocks = vllm_ops.op(
    "_C_cache_ops", "copy_blocks",
    "copy_blocks(Tensor(a!)[] key_caches, Tensor[](b!) value_caches, Tensor "
    "block_mapping) -> ()")


def copy_blocks(key_caches, value_caches, block_mapping):
    _copy_blocks(key_caches, value_caches, block_mapping)
