"""vLLM's own convert_fp8: torch.ops._C_cache_ops.convert_fp8 (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_convert_fp8 = vllm_ops.op(
    "_C_cache_ops", "convert_fp8",
    "convert_fp8(Tensor! dst_cache, Tensor src_cache, float scale, str kv_cache_dtype) ->"
    " ()")


def convert_fp8(dst_cache, src_cache, scale, kv_cache_dtype):
    _convert_fp8(dst_cache, src_cache, scale, kv_cache_dtype)
