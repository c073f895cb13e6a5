"""vLLM's own swap_blocks: torch.ops._C_cache_ops.swap_blocks (runtime/vllm_ops.py), the task's
arguments passed straight through in its order. The 3-argument schema; a vLLM with
`block_size_in_bytes` is refused by the schema check. All three tensors are on the GPU (vLLM
accepts that as a device-to-device copy).
"""

from runtime import vllm_ops

_swap_blocks = vllm_ops.op(
    "_C_cache_ops", "swap_blocks",
    "swap_blocks(Tensor src, Tensor! dst, Tensor block_mapping) -> ()")


def swap_blocks(src, dst, block_mapping):
    _swap_blocks(src, dst, block_mapping)
