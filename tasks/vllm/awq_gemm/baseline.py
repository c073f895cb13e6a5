"""vLLM's own awq_gemm: torch.ops._C.awq_gemm (runtime/vllm_ops.py), the task's arguments passed
straight through in its order.
"""

from runtime import vllm_ops

_awq_gemm = vllm_ops.op(
    "_C", "awq_gemm",
    "awq_gemm(Tensor _in_feats, Tensor _kernel, Tensor _scaling_factors, Tensor _zeros, "
    "SymInt split_k_iters) -> Tensor")


def awq_gemm(_in_feats, _kernel, _scaling_factors, _zeros, split_k_iters):
    return _awq_gemm(_in_feats, _kernel, _scaling_factors, _zeros, split_k_iters)
