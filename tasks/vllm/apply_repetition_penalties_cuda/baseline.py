"""vLLM's own apply_repetition_penalties_cuda: torch.ops._C.apply_repetition_penalties_
(runtime/vllm_ops.py), the task's arguments passed straight through in its order. The task is
named after vLLM's Python wrapper `apply_repetition_penalties_cuda` (vllm/_custom_ops.py), which
calls this op with the same four arguments.
"""

from runtime import vllm_ops

_apply_repetition_penalties_ = vllm_ops.op(
    "_C", "apply_repetition_penalties_",
    "apply_repetition_penalties_(Tensor! logits, Tensor prompt_mask, Tensor output_mask, "
    "Tensor repetition_penalties) -> ()")


def apply_repetition_penalties_cuda(logits, prompt_mask, output_mask, repetition_penalties):
    _apply_repetition_penalties_(logits, prompt_mask, output_mask, repetition_penalties)
