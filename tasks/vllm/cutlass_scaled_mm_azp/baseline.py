"""vLLM's own cutlass_scaled_mm_azp: torch.ops._C.cutlass_scaled_mm_azp (runtime/vllm_ops.py),
the task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_cutlass_scaled_mm_azp = vllm_ops.op(
    "_C", "cutlass_scaled_mm_azp",
    "cutlass_scaled_mm_azp(Tensor! out, Tensor a, Tensor b, Tensor a_scales, Tensor "
    "b_scales, Tensor azp_adj, Tensor? azp, Tensor? bias) -> ()")


def cutlass_scaled_mm_azp(out, a, b, a_scales, b_scales, azp_adj, azp, bias):
    _cutlass_scaled_mm_azp(out, a, b, a_scales, b_scales, azp_adj, azp, bias)
