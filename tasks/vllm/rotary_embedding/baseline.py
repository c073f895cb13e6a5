"""No vLLM baseline for rotary_embedding: the reference stays the baseline. vLLM's kernel rounds
each product to fp16/bf16, which can cancel a small result beyond any relative tolerance
(docs/tasks-vllm.md: a kernel doing exactly vLLM's arithmetic may fail some cases); on the timed
cases (millions of fp16/bf16 elements) vLLM's output would likely fail the task's check.
"""

raise ImportError(
    "rotary_embedding: no faithful vLLM baseline: vLLM's kernel rounds each product to "
    "fp16/bf16, which can cancel a small result beyond any relative tolerance "
    "(docs/tasks-vllm.md: a kernel doing exactly vLLM's arithmetic may fail some cases); "
    "on the timed cases (millions of fp16/bf16 elements) vLLM's output would likely fail "
    "the task's check"
)
