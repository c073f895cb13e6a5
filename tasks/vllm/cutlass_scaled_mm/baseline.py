"""vLLM's own cutlass_scaled_mm: torch.ops._C.cutlass_scaled_mm (runtime/vllm_ops.py), the
task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_cutlass_scaled_mm = vllm_ops.op(
    "_C", "cutlass_scaled_mm",
    "cutlass_scaled_mm(Tensor! out, Tensor a, Tensor b, Tensor a_scales, Tensor b_scales,"
    " Tensor? bias) -> ()")


def cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias):
    _cutlass_scaled_mm(out, a, b, a_scales, b_scales, bias)
