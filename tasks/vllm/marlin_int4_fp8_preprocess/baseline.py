"""vLLM's own marlin_int4_fp8_preprocess: torch.ops._C.marlin_int4_fp8_preprocess
(runtime/vllm_ops.py), the task's arguments passed straight through in its order. The defaults
are the wrapper's (`None`, `False`).
"""

from runtime import vllm_ops

_marlin_int4_fp8_preprocess = vllm_ops.op(
    "_C", "marlin_int4_fp8_preprocess",
    "marlin_int4_fp8_preprocess(Tensor qweight, Tensor? qzeros_or_none=None, bool "
    "inplace=False) -> Tensor")


def marlin_int4_fp8_preprocess(qweight, qzeros_or_none=None, inplace=False):
    return _marlin_int4_fp8_preprocess(qweight, qzeros_or_none, inplace)
