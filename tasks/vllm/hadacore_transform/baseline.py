"""vLLM's own hadacore_transform: torch.ops._C.hadacore_transform (runtime/vllm_ops.py), the
task's arguments passed straight through. With `inplace` the task returns `x` itself, while
vLLM's host code (csrc/quantization/hadamard/hadacore/hadamard_transform_cuda.cu) returns a
reshape of its working tensor, which for the contiguous `x` of the timed cases is a view of `x`
over the same memory: `x` is returned instead. A non-contiguous in-place `x` is not written back
by vLLM (it works on a contiguous copy); the check then fails the case (ref_error), but no timed
case has one.
"""

from runtime import vllm_ops

_hadacore_transform = vllm_ops.op(
    "_C", "hadacore_transform",
    "hadacore_transform(Tensor! x, bool inplace) -> Tensor")


def hadacore_transform(x, inplace):
    out = _hadacore_transform(x, inplace)
    return x if inplace else out
