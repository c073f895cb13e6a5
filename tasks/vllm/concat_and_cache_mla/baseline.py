"""vLLM's own concat_and_cache_mla: torch.ops._C_cache_ops.concat_and_cache_mla
(runtime/vllm_ops.py), the task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_concat_and_cache_mla = vllm_ops.op(
    "_C_cache_ops", "concat_and_cache_mla",
    "concat_and_cache_mla(Tensor kv_c, Tensor k_pe, Tensor! kv_cache, Tensor "
    "slot_mapping, str kv_cache_dtype, Tensor scale) -> ()")


def concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale):
    _concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale)
