"""vLLM's own scaled_fp8_quant: torch.ops._C.static_scaled_fp8_quant,
torch.ops._C.dynamic_scaled_fp8_quant, torch.ops._C.dynamic_per_token_scaled_fp8_quant
(runtime/vllm_ops.py), the task's arguments passed straight through in its order. One function
per entry, as the task has one entry per op; a later `group_shape=None` argument of the static
op keeps its default.
"""

from runtime import vllm_ops

_static_scaled_fp8_quant = vllm_ops.op(
    "_C", "static_scaled_fp8_quant",
    "static_scaled_fp8_quant(Tensor! result, Tensor input, Tensor scale) -> ()")
_dynamic_scaled_fp8_quant = vllm_ops.op(
    "_C", "dynamic_scaled_fp8_quant",
    "dynamic_scaled_fp8_quant(Tensor! result, Tensor input, Tensor! scale) -> ()")
_dynamic_per_token_scaled_fp8_quant = vllm_ops.op(
    "_C", "dynamic_per_token_scaled_fp8_quant",
    "dynamic_per_token_scaled_fp8_quant(Tensor! result, Tensor input, Tensor! scale, "
    "Tensor? scale_ub) -> ()")


def static_scaled_fp8_quant(result, input, scale):
    _static_scaled_fp8_quant(result, input, scale)


def dynamic_scaled_fp8_quant(result, input, scale):
    _dynamic_scaled_fp8_quant(result, input, scale)


def dynamic_per_token_scaled_fp8_quant(result, input, scale, scale_ub):
    _dynamic_per_token_scaled_fp8_quant(result, input, scale, scale_ub)
