"""vLLM's own ggml_mul_mat_vec_a8: torch.ops._C.ggml_mul_mat_vec_a8 (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_ggml_mul_mat_vec_a8 = vllm_ops.op(
    "_C", "ggml_mul_mat_vec_a8",
    "ggml_mul_mat_vec_a8(Tensor W, Tensor X, int type, SymInt row) -> Tensor")


def ggml_mul_mat_vec_a8(W, X, type, row):
    return _ggml_mul_mat_vec_a8(W, X, type, row)
