"""Reference for vLLM's moe_sum (torch.ops._moe_C.moe_sum; csrc/moe/moe_align_sum_kernels.cu):
our own torch code, run by the worker on float64 copies (values) and on the native inputs
(structure and the GPU baseline).

moe_sum(input, output) writes output[t, h] = sum over k of input[t, k, h], for input of shape
[num_tokens, topk, hidden_size] and output of shape [num_tokens, hidden_size], both of one
floating dtype; it returns nothing and does not modify input.

The sum is taken with torch.sum into `output`: on the float64 copies that is exact for these
short sums (a few float64 roundings), and on the native inputs ATen accumulates float16 and
bfloat16 in float32 and rounds once, which is what the task asks for. vLLM's own CUDA kernel
accumulates in the input dtype for topk 2 to 4 (and calls this same ATen sum for other topk);
the task requires float32 accumulation for all.

Tolerance: each output is a sum of `topk` unit-normal terms, so `reduce` is topk.
"""

import torch


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    torch.sum(input, dim=1, out=output)
