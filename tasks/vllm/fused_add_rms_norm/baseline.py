"""vLLM's own fused_add_rms_norm: torch.ops._C.fused_add_rms_norm (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_fused_add_rms_norm = vllm_ops.op(
    "_C", "fused_add_rms_norm",
    "fused_add_rms_norm(Tensor! input, Tensor! residual, Tensor weight, float epsilon) ->"
    " ()")


def fused_add_rms_norm(input, residual, weight, epsilon):
    _fused_add_rms_norm(input, residual, weight, epsilon)
