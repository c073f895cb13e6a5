"""vLLM's own copy_blocks_mla: torch.ops._C_cache_ops.copy_blocks_mla (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_copy_blocks_mla = vllm_ops.op(
    "_C_cache_ops", "copy_blocks_mla",
    "copy_blocks_mla(Tensor(a!)[] kv_caches, Tensor block_mapping) -> ()")


def copy_blocks_mla(kv_caches, block_mapping):
    _copy_blocks_mla(kv_caches, block_mapping)
