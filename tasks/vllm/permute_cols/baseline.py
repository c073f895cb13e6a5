"""vLLM's own permute_cols: torch.ops._C.permute_cols (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_permute_cols = vllm_ops.op(
    "_C", "permute_cols",
    "permute_cols(Tensor A, Tensor perm) -> Tensor")


def permute_cols(A, perm):
    return _permute_cols(A, perm)
