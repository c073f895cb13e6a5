"""vLLM's own gptq_marlin_gemm: torch.ops._C.gptq_marlin_gemm (runtime/vllm_ops.py), the task's
arguments passed straight through in its order (`b_type_id` is the int that vLLM's wrapper
passes as `b_q_type.id`). Newer vLLM renames the op `marlin_gemm` with the same arguments
(csrc/torch_bindings.cpp); it is taken when `gptq_marlin_gemm` is not registered, and the
schema check refuses either when its arguments differ (e.g. an older schema without `a_scales`).
"""

from runtime import vllm_ops

_SCHEMA = ("gptq_marlin_gemm(Tensor a, Tensor? c_or_none, Tensor b_q_weight, Tensor? "
           "b_bias_or_none, Tensor b_scales, Tensor? a_scales, Tensor? global_scale, Tensor? "
           "b_zeros_or_none, Tensor? g_idx_or_none, Tensor? perm_or_none, Tensor workspace, "
           "int b_type_id, SymInt size_m, SymInt size_n, SymInt size_k, bool is_k_full, "
           "bool use_atomic_add, bool use_fp32_reduce, bool is_zp_float) -> Tensor")

try:
    _gptq_marlin_gemm = vllm_ops.op("_C", "gptq_marlin_gemm", _SCHEMA)
except vllm_ops.NotRegistered:
    _gptq_marlin_gemm = vllm_ops.op("_C", "marlin_gemm", _SCHEMA)


def gptq_marlin_gemm(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, a_scales, global_scale,
                     b_zeros_or_none, g_idx_or_none, perm_or_none, workspace, b_type_id, size_m,
                     size_n, size_k, is_k_full, use_atomic_add, use_fp32_reduce, is_zp_float):
    return _gptq_marlin_gemm(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, a_scales,
                             global_scale, b_zeros_or_none, g_idx_or_none, perm_or_none,
                             workspace, b_type_id, size_m, size_n, size_k, is_k_full,
                             use_atomic_add, use_fp32_reduce, is_zp_float)
