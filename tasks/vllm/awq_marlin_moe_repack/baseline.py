"""vLLM's own awq_marlin_moe_repack, which vLLM writes in Python (vllm/_custom_ops.py): an
[E, K/16, N*num_bits/2] result of the weight's dtype (int32) and device, filled expert by expert
with torch.ops._C.awq_marlin_repack(b_q_weight[e], size_k, size_n, num_bits, is_a_8bit)
(runtime/vllm_ops.py); `perm` is never read, as in vLLM. The same loop here, so the baseline is
vLLM's own code path, Python loop included; a vLLM whose awq_marlin_repack lacks `is_a_8bit` is
refused by the schema check.
"""

import torch

from runtime import vllm_ops

_awq_marlin_repack = vllm_ops.op(
    "_C", "awq_marlin_repack",
    "awq_marlin_repack(Tensor b_q_weight, SymInt size_k, SymInt size_n, int num_bits, "
    "bool is_a_8bit) -> Tensor")


def awq_marlin_moe_repack(b_q_weight, perm, size_k, size_n, num_bits, is_a_8bit=False):
    num_experts = b_q_weight.shape[0]
    assert size_k % 16 == 0
    output = torch.empty((num_experts, size_k // 16, size_n * (num_bits // 2)),
                         device=b_q_weight.device, dtype=b_q_weight.dtype)
    for e in range(num_experts):
        output[e] = _awq_marlin_repack(b_q_weight[e], size_k, size_n, num_bits, is_a_8bit)
    return output
