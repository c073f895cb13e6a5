"""No vLLM baseline for moe_lora_align_block_size: the reference stays the baseline. vLLM's
later kernels for this op (the form with `maybe_expert_map` that this task's signature has)
scatter the pairs with atomics, so their order within an expert's segment varies from run to
run, while this task requires ascending flat index and compares exactly (its prompt, docs/tasks-
vllm.md), so vLLM's output would fail the task's check.
"""

raise ImportError(
    "moe_lora_align_block_size: no faithful vLLM baseline: vLLM's later kernels for this "
    "op (the form with `maybe_expert_map` that this task's signature has) scatter the "
    "pairs with atomics, so their order within an expert's segment varies from run to "
    "run, while this task requires ascending flat index and compares exactly (its prompt,"
    " docs/tasks-vllm.md), so vLLM's output would fail the task's check"
)
