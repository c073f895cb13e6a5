"""No vLLM baseline for grouped_topk: the reference stays the baseline. vLLM's tanh-based
sigmoid and its fp16/bf16 roundings flip selections on ulp ties (1-3 per 250k tokens measured,
docs/tasks-vllm.md); the task compares selections exactly and its timed cases have 32768-65536
tokens, so vLLM's output would fail the check.
"""

raise ImportError(
    "grouped_topk: no faithful vLLM baseline: vLLM's tanh-based sigmoid and its fp16/bf16"
    " roundings flip selections on ulp ties (1-3 per 250k tokens measured, docs/tasks-"
    "vllm.md); the task compares selections exactly and its timed cases have 32768-65536 "
    "tokens, so vLLM's output would fail the check"
)
