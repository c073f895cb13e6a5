"""Shipped solution for aten::embedding: a row gather.

The indices are flattened to one list of tokens; a 2-D grid of programs covers (blocks of tokens)
x (blocks of the embedding dimension). Each program loads its token ids once, turns them into
int64 row offsets through the weight's own strides (so a transposed, strided or offset weight
needs no copy) and copies the rows into the contiguous output.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(w_ptr, idx_ptr, out_ptr, n_tok, D, s_row, s_col,
                      BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_t = tl.program_id(0)
    pid_d = tl.program_id(1)
    toks = pid_t.to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    tmask = toks < n_tok
    rows = tl.load(idx_ptr + toks, mask=tmask, other=0).to(tl.int64)
    cols = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    m = tmask[:, None] & (cols < D)[None, :]
    v = tl.load(w_ptr + rows[:, None] * s_row + cols[None, :].to(tl.int64) * s_col, mask=m)
    tl.store(out_ptr + toks[:, None] * D + cols[None, :], v, mask=m)


def embedding(weight: torch.Tensor, indices: torch.Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> torch.Tensor:
    # padding_idx, scale_grad_by_freq and sparse only change the backward pass
    if weight.dim() != 2:
        raise RuntimeError("embedding: weight must be 2-D")
    D = weight.shape[1]
    out = torch.empty(tuple(indices.shape) + (D,), dtype=weight.dtype, device=weight.device)
    n_tok = indices.numel()
    if n_tok == 0 or D == 0:
        return out
    idx = indices.reshape(-1)
    if not idx.is_contiguous():
        idx = idx.contiguous()
    # the CPU interpreter runs programs one by one: give it fewer, larger tiles
    tile = 4096 if weight.device.type != "cpu" else 65536
    block_d = min(triton.next_power_of_2(D), 512 if weight.device.type != "cpu" else 4096)
    block_t = min(triton.next_power_of_2(n_tok), max(1, tile // block_d))
    grid = (triton.cdiv(n_tok, block_t), triton.cdiv(D, block_d))
    _embedding_kernel[grid](weight, idx, out, n_tok, D, weight.stride(0), weight.stride(1),
                            BLOCK_T=block_t, BLOCK_D=block_d, num_warps=4)
    return out
