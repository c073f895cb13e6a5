"""vLLM's own gather_and_maybe_dequant_cache:
torch.ops._C_cache_ops.gather_and_maybe_dequant_cache (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_gather_and_maybe_dequant_cache = vllm_ops.op(
    "_C_cache_ops", "gather_and_maybe_dequant_cache",
    "gather_and_maybe_dequant_cache(Tensor src_cache, Tensor! dst, Tensor block_table, "
    "Tensor cu_seq_lens, Tensor token_to_seq, int num_tokens, str kv_cache_dtype, Tensor "
    "scale, Tensor? seq_starts) -> ()")


def gather_and_maybe_dequant_cache(src_cache, dst, block_table, cu_seq_lens, token_to_seq,
                                   num_tokens, kv_cache_dtype, scale, seq_starts):
    _gather_and_maybe_dequant_cache(src_cache, dst, block_table, cu_seq_lens, token_to_seq,
                                    num_tokens, kv_cache_dtype, scale, seq_starts)
