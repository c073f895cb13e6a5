"""vLLM's own convert_vertical_slash_indexes: torch.ops._C.convert_vertical_slash_indexes
(runtime/vllm_ops.py), the task's arguments passed straight through in its order. The task's
sixth argument is `kv_seqlens` where vLLM's schema says `q_seqlens` twice (an upstream typo);
the outputs arrive zero-filled, as vLLM's wrapper makes them. The task has no timed cases, so
this baseline is not used yet.
"""

from runtime import vllm_ops

_convert_vertical_slash_indexes = vllm_ops.op(
    "_C", "convert_vertical_slash_indexes",
    "convert_vertical_slash_indexes(Tensor! block_count, Tensor! block_offset, Tensor! "
    "column_count, Tensor! column_index, Tensor q_seqlens, Tensor kv_seqlens, Tensor "
    "vertical_indexes, Tensor slash_indexes, int context_size, int block_size_M, int "
    "block_size_N, bool causal) -> ()")


def convert_vertical_slash_indexes(block_count, block_offset, column_count, column_index,
                                   q_seqlens, kv_seqlens, vertical_indexes, slash_indexes,
                                   context_size, block_size_M, block_size_N, causal):
    _convert_vertical_slash_indexes(block_count, block_offset, column_count, column_index,
                                    q_seqlens, kv_seqlens, vertical_indexes, slash_indexes,
                                    context_size, block_size_M, block_size_N, causal)
