"""vLLM's own ggml_dequantize: torch.ops._C.ggml_dequantize (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_ggml_dequantize = vllm_ops.op(
    "_C", "ggml_dequantize",
    "ggml_dequantize(Tensor W, int type, SymInt m, SymInt n, ScalarType? dtype) -> Tensor")


def ggml_dequantize(W, type, m, n, dtype):
    return _ggml_dequantize(W, type, m, n, dtype)
