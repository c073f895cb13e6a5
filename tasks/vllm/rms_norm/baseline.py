"""vLLM's own rms_norm: torch.ops._C.rms_norm (runtime/vllm_ops.py), the task's arguments passed
straight through in its order. vLLM's schema names `out` `result`.
"""

from runtime import vllm_ops

_rms_norm = vllm_ops.op(
    "_C", "rms_norm",
    "rms_norm(Tensor! out, Tensor input, Tensor weight, float epsilon) -> ()")


def rms_norm(out, input, weight, epsilon):
    _rms_norm(out, input, weight, epsilon)
