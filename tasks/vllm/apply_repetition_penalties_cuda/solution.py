"""Shipped solution for vLLM's apply_repetition_penalties_cuda: one Triton kernel, one pass.

A program owns a [BR sequences, BC tokens] tile of `logits`. It loads the tile, the matching
tiles of both masks (bytes) and the BR penalties, computes the penalised logit in float32 and
stores it back rounded once to the logits' dtype, only where the token is repeated: untouched
logits are never written, which saves write bandwidth when the masks are sparse. Rows are read
as contiguous runs (coalesced); wide vocabularies are split into several column tiles so that
even a single sequence spreads over the GPU. Offsets are 64-bit (num_seqs * vocab_size can pass
2**31).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rep_penalty_kernel(x_ptr, pm_ptr, om_ptr, pen_ptr, R, V, sx, spm, som, sp, n_col_blocks,
                        BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_c = pid - pid_r * n_col_blocks
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_c.to(tl.int64) * BC + tl.arange(0, BC)
    r_ok = rows < R
    mask = r_ok[:, None] & (cols < V)[None, :]
    rep = tl.load(pm_ptr + (rows * spm)[:, None] + cols[None, :], mask=mask, other=0) != 0
    rep = rep | (tl.load(om_ptr + (rows * som)[:, None] + cols[None, :], mask=mask, other=0) != 0)
    x_ptrs = x_ptr + (rows * sx)[:, None] + cols[None, :]
    x = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(pen_ptr + rows * sp, mask=r_ok, other=1.0).to(tl.float32)[:, None]
    y = tl.where(x > 0, x / p, x * p)
    tl.store(x_ptrs, y.to(x_ptr.dtype.element_ty), mask=mask & rep)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(R, V, gpu):
    """(BR, BC, num_warps)."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bc = min(_pow2(V), 65536)
        return min(_pow2(R), max(1, 262144 // bc)), bc, 4
    # 4096-element tiles (16 per thread at 8 warps); narrow vocabularies stack several rows.
    bc = min(_pow2(V), 4096)
    br = min(_pow2(R), max(1, 4096 // bc))
    return br, bc, 8


def apply_repetition_penalties_cuda(logits: torch.Tensor, prompt_mask: torch.Tensor,
                                    output_mask: torch.Tensor,
                                    repetition_penalties: torch.Tensor) -> None:
    if logits.dim() != 2:
        raise ValueError(f"apply_repetition_penalties_: logits must be [num_seqs, vocab_size], "
                         f"got {list(logits.shape)}")
    R, V = logits.shape
    if prompt_mask.shape != logits.shape or output_mask.shape != logits.shape:
        raise ValueError("apply_repetition_penalties_: masks must have the shape of logits")
    if repetition_penalties.shape != (R,):
        raise ValueError(f"apply_repetition_penalties_: repetition_penalties has shape "
                         f"{list(repetition_penalties.shape)}, expected [{R}]")
    if logits.numel() == 0:
        return None
    for t in (logits, prompt_mask, output_mask):
        if t.stride(1) != 1:
            raise ValueError("apply_repetition_penalties_: tensors must be contiguous")
    # bool tensors are read as their bytes (0 or 1).
    pm = prompt_mask.view(torch.uint8)
    om = output_mask.view(torch.uint8)
    br, bc, warps = _tiles(R, V, logits.device.type != "cpu")
    n_col_blocks = triton.cdiv(V, bc)
    grid = (triton.cdiv(R, br) * n_col_blocks,)
    _rep_penalty_kernel[grid](logits, pm, om, repetition_penalties, R, V, logits.stride(0),
                              pm.stride(0), om.stride(0), repetition_penalties.stride(0),
                              n_col_blocks, BR=br, BC=bc, num_warps=warps)
    return None
