"""vLLM's own merge_attn_states: torch.ops._C.merge_attn_states (runtime/vllm_ops.py), the
task's arguments passed straight through in its order. The 6-argument schema; a vLLM whose op
adds `prefill_tokens_with_context` (no default) is refused by the schema check.
"""

from runtime import vllm_ops

_merge_attn_states = vllm_ops.op(
    "_C", "merge_attn_states",
    "merge_attn_states(Tensor! output, Tensor? output_lse, Tensor prefix_output, Tensor "
    "prefix_lse, Tensor suffix_output, Tensor suffix_lse) -> ()")


def merge_attn_states(output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse):
    _merge_attn_states(output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse)
