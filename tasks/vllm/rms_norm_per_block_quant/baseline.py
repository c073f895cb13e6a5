"""No vLLM baseline for rms_norm_per_block_quant: the reference stays the baseline. the int8
result is compared exactly and the task defines rms with correctly rounded division and square
root, where vLLM uses the approximate `rsqrtf`; with the task's small-integer inputs, ties at .5
occur and the approximation can flip a quantized value (docs/tasks-vllm.md).
"""

raise ImportError(
    "rms_norm_per_block_quant: no faithful vLLM baseline: the int8 result is compared "
    "exactly and the task defines rms with correctly rounded division and square root, "
    "where vLLM uses the approximate `rsqrtf`; with the task's small-integer inputs, ties"
    " at .5 occur and the approximation can flip a quantized value (docs/tasks-vllm.md)"
)
