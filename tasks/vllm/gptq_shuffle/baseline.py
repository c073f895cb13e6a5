"""vLLM's own gptq_shuffle: torch.ops._C.gptq_shuffle (runtime/vllm_ops.py), the task's
arguments passed straight through in its order.
"""

from runtime import vllm_ops

_gptq_shuffle = vllm_ops.op(
    "_C", "gptq_shuffle",
    "gptq_shuffle(Tensor! q_weight, Tensor q_perm, int bit) -> ()")


def gptq_shuffle(q_weight, q_perm, bit):
    _gptq_shuffle(q_weight, q_perm, bit)
