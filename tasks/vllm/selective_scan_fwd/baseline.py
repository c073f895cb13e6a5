"""vLLM's own selective_scan_fwd: torch.ops._C.selective_scan_fwd (runtime/vllm_ops.py), the
task's arguments passed straight through in its order. The 18-argument schema (`pad_slot_id`;
other vLLM versions have 13 or 20 arguments and are refused by the schema check). The task has
no timed cases, so this baseline is not used yet.
"""

from runtime import vllm_ops

_selective_scan_fwd = vllm_ops.op(
    "_C", "selective_scan_fwd",
    "selective_scan_fwd(Tensor! u, Tensor! delta, Tensor! A, Tensor! B, Tensor! C, "
    "Tensor? D_, Tensor!? z_, Tensor? delta_bias_, bool delta_softplus, Tensor? "
    "query_start_loc, Tensor? cache_indices, Tensor? has_initial_state, Tensor! "
    "ssm_states, int pad_slot_id, int block_size, Tensor? "
    "block_idx_first_scheduled_token, Tensor? block_idx_last_scheduled_token, Tensor? "
    "initial_state_idx) -> ()")


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                       cache_indices, has_initial_state, ssm_states, pad_slot_id, block_size,
                       block_idx_first_scheduled_token, block_idx_last_scheduled_token,
                       initial_state_idx):
    _selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                        cache_indices, has_initial_state, ssm_states, pad_slot_id, block_size,
                        block_idx_first_scheduled_token, block_idx_last_scheduled_token,
                        initial_state_idx)
