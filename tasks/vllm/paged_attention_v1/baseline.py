"""vLLM's own paged_attention_v1: torch.ops._C.paged_attention_v1 (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_paged_attention_v1 = vllm_ops.op(
    "_C", "paged_attention_v1",
    "paged_attention_v1(Tensor! out, Tensor query, Tensor key_cache, Tensor value_cache, "
    "int num_kv_heads, float scale, Tensor block_tables, Tensor seq_lens, int block_size,"
    " int max_seq_len, Tensor? alibi_slopes, str kv_cache_dtype, Tensor k_scale, Tensor "
    "v_scale, int tp_rank, int blocksparse_local_blocks, int blocksparse_vert_stride, int"
    " blocksparse_block_size, int blocksparse_head_sliding_step) -> ()")


def paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables,
                       seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale,
                       v_scale, tp_rank, blocksparse_local_blocks, blocksparse_vert_stride,
                       blocksparse_block_size, blocksparse_head_sliding_step):
    _paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables,
                        seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype,
                        k_scale, v_scale, tp_rank, blocksparse_local_blocks,
                        blocksparse_vert_stride, blocksparse_block_size,
                        blocksparse_head_sliding_step)
