"""vLLM's own shuffle_rows: torch.ops._moe_C.shuffle_rows (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_shuffle_rows = vllm_ops.op(
    "_moe_C", "shuffle_rows",
    "shuffle_rows(Tensor input_tensor, Tensor dst2src_map, Tensor! output_tensor) -> ()")


def shuffle_rows(input_tensor, dst2src_map, output_tensor):
    _shuffle_rows(input_tensor, dst2src_map, output_tensor)
