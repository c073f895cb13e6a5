"""vLLM's own gptq_gemm: torch.ops._C.gptq_gemm (runtime/vllm_ops.py), the task's arguments
passed straight through in its order. The 8-argument schema with `use_v2_format`; the timed
cases are 4-bit ExLlama ones.
"""

from runtime import vllm_ops

_gptq_gemm = vllm_ops.op(
    "_C", "gptq_gemm",
    "gptq_gemm(Tensor a, Tensor b_q_weight, Tensor b_gptq_qzeros, Tensor b_gptq_scales, "
    "Tensor b_g_idx, bool use_exllama, bool use_v2_format, int bit) -> Tensor")


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama, use_v2_format,
              bit):
    return _gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama,
                      use_v2_format, bit)
