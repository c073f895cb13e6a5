"""vLLM's own cp_gather_indexer_k_quant_cache:
torch.ops._C_cache_ops.cp_gather_indexer_k_quant_cache (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_cp_gather_indexer_k_quant_cache = vllm_ops.op(
    "_C_cache_ops", "cp_gather_indexer_k_quant_cache",
    "cp_gather_indexer_k_quant_cache(Tensor kv_cache, Tensor! dst_k, Tensor! dst_scale, "
    "Tensor block_table, Tensor cu_seq_lens) -> ()")


def cp_gather_indexer_k_quant_cache(kv_cache, dst_k, dst_scale, block_table, cu_seq_lens):
    _cp_gather_indexer_k_quant_cache(kv_cache, dst_k, dst_scale, block_table, cu_seq_lens)
