"""vLLM's own cutlass_pack_scale_fp8: torch.ops._C.cutlass_pack_scale_fp8 (runtime/vllm_ops.py),
the task's arguments passed straight through in its order.
"""

from runtime import vllm_ops

_cutlass_pack_scale_fp8 = vllm_ops.op(
    "_C", "cutlass_pack_scale_fp8",
    "cutlass_pack_scale_fp8(Tensor scales) -> Tensor")


def cutlass_pack_scale_fp8(scales):
    return _cutlass_pack_scale_fp8(scales)
