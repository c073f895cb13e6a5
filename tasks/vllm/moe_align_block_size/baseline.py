"""No vLLM baseline for moe_align_block_size: the reference stays the baseline. vLLM's kernel
places the pairs of an expert's segment in an order set by atomics (undefined), while this task
fixes ascending flat index and compares exactly (docs/tasks-vllm.md), so vLLM's output would
fail the task's check on every timed case.
"""

raise ImportError(
    "moe_align_block_size: no faithful vLLM baseline: vLLM's kernel places the pairs of "
    "an expert's segment in an order set by atomics (undefined), while this task fixes "
    "ascending flat index and compares exactly (docs/tasks-vllm.md), so vLLM's output "
    "would fail the task's check on every timed case"
)
