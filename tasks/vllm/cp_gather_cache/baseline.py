"""vLLM's own cp_gather_cache: torch.ops._C_cache_ops.cp_gather_cache (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_cp_gather_cache = vllm_ops.op(
    "_C_cache_ops", "cp_gather_cache",
    "cp_gather_cache(Tensor src_cache, Tensor! dst, Tensor block_table, Tensor "
    "cu_seq_lens, int batch_size, Tensor? seq_starts) -> ()")


def cp_gather_cache(src_cache, dst, block_table, cu_seq_lens, batch_size, seq_starts):
    _cp_gather_cache(src_cache, dst, block_table, cu_seq_lens, batch_size, seq_starts)
