"""vLLM's own reshape_and_cache_flash: torch.ops._C_cache_ops.reshape_and_cache_flash
(runtime/vllm_ops.py), the task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_reshape_and_cache_flash = vllm_ops.op(
    "_C_cache_ops", "reshape_and_cache_flash",
    "reshape_and_cache_flash(Tensor key, Tensor value, Tensor! key_cache, Tensor! "
    "value_cache, Tensor slot_mapping, str kv_cache_dtype, Tensor k_scale, Tensor "
    "v_scale) -> ()")


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype,
                            k_scale, v_scale):
    _reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype,
                             k_scale, v_scale)
