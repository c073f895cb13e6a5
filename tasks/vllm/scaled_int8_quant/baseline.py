"""vLLM's own scaled_int8_quant: torch.ops._C.static_scaled_int8_quant,
torch.ops._C.dynamic_scaled_int8_quant (runtime/vllm_ops.py), the task's arguments passed
straight through in its order. One function per entry, as the task has one entry per op (there
is no `_C.scaled_int8_quant`).
"""

from runtime import vllm_ops

_static_scaled_int8_quant = vllm_ops.op(
    "_C", "static_scaled_int8_quant",
    "static_scaled_int8_quant(Tensor! result, Tensor input, Tensor scale, Tensor? azp) ->"
    " ()")
_dynamic_scaled_int8_quant = vllm_ops.op(
    "_C", "dynamic_scaled_int8_quant",
    "dynamic_scaled_int8_quant(Tensor! result, Tensor input, Tensor! scale, Tensor!? azp)"
    " -> ()")


def static_scaled_int8_quant(result, input, scale, azp):
    _static_scaled_int8_quant(result, input, scale, azp)


def dynamic_scaled_int8_quant(result, input, scale, azp):
    _dynamic_scaled_int8_quant(result, input, scale, azp)
