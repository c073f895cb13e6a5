"""No vLLM baseline for gptq_marlin_24_gemm: the reference stays the baseline. vLLM rounds
cross-block partial sums to fp16 and, for 4-bit per-column scales, rounds the unscaled sum
before scaling; whether its output always fits the task's tolerance is unverified (docs/tasks-
vllm.md says so), and a baseline that disagrees makes every timed case ref_error.
"""

raise ImportError(
    "gptq_marlin_24_gemm: no faithful vLLM baseline: vLLM rounds cross-block partial sums"
    " to fp16 and, for 4-bit per-column scales, rounds the unscaled sum before scaling; "
    "whether its output always fits the task's tolerance is unverified (docs/tasks-"
    "vllm.md says so), and a baseline that disagrees makes every timed case ref_error"
)
