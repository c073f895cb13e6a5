"""Shipped solution for vLLM's merge_attn_states: one Triton kernel, one read of each input and
one write of each output.

The (token, head) pairs are R = num_tokens * num_heads rows of head_size elements. A program
owns a [BR rows, BD] tile: it reads the two LSEs of its rows (a small gather, since the LSE
tensors are [num_heads, num_tokens]), forms both weights in float32 per row, then streams the
two [BR, BD] tiles of the partial outputs (contiguous runs of each head: coalesced), merges
them in float32 and stores the tile once, rounded to the output dtype. The merged LSE is written
once per row. Every tensor is addressed through its strides, with 64-bit offsets.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _merge_kernel(o_ptr, olse_ptr, po_ptr, plse_ptr, so_ptr, slse_ptr, R, H, D,
                  os_t, os_h, os_d, ps_t, ps_h, ps_d, ss_t, ss_h, ss_d,
                  ol_h, ol_t, pl_h, pl_t, sl_h, sl_t,
                  HAS_LSE: tl.constexpr, BR: tl.constexpr, BD: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    t = rows // H
    h = rows - t * H
    p = tl.load(plse_ptr + h * pl_h + t * pl_t, mask=r_ok, other=0.0).to(tl.float32)
    s = tl.load(slse_ptr + h * sl_h + t * sl_t, mask=r_ok, other=0.0).to(tl.float32)
    # vLLM takes an infinite LSE of either sign as "no keys": -inf.
    p = tl.where(tl.abs(p) == float("inf"), float("-inf"), p)
    s = tl.where(tl.abs(s) == float("inf"), float("-inf"), s)
    # fmaxf: a NaN operand is ignored.
    m = tl.where(p != p, s, tl.where(s != s, p, tl.maximum(p, s)))
    dead = m == float("-inf")
    m_fin = tl.where(dead, 0.0, m)
    a = tl.exp(p - m_fin)
    b = tl.exp(s - m_fin)
    total = tl.where(dead, 1.0, a + b)
    # Rows with no keys copy the prefix: weights (1, 0).
    wa = tl.where(dead, 1.0, a / total)
    wb = tl.where(dead, 0.0, b / total)
    if HAS_LSE:
        lse = tl.where(dead, float("-inf"), tl.log(total) + m_fin)
        tl.store(olse_ptr + h * ol_h + t * ol_t, lse, mask=r_ok)
    cols = tl.arange(0, BD).to(tl.int64)
    mask = r_ok[:, None] & (cols < D)[None, :]
    po = tl.load(po_ptr + (t * ps_t + h * ps_h)[:, None] + (cols * ps_d)[None, :], mask=mask,
                 other=0.0).to(tl.float32)
    so = tl.load(so_ptr + (t * ss_t + h * ss_h)[:, None] + (cols * ss_d)[None, :], mask=mask,
                 other=0.0).to(tl.float32)
    # A dead row must copy the prefix even where the suffix is inf/NaN (0 * inf is NaN).
    out = tl.where(dead[:, None], po, po * wa[:, None] + so * wb[:, None])
    tl.store(o_ptr + (t * os_t + h * os_h)[:, None] + (cols * os_d)[None, :],
             out.to(o_ptr.dtype.element_ty), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(R, D, gpu):
    """(BR, BD, num_warps)."""
    bd = _pow2(D)
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        return min(_pow2(R), max(1, 65536 // bd)), bd, 4
    # About 4096 elements of each input per program (16 per thread at 8 warps): two streams of
    # loads in flight, enough to keep an H200's memory busy.
    br = min(_pow2(R), max(1, 4096 // bd))
    return br, bd, 8 if br * bd >= 4096 else 4


def merge_attn_states(output: torch.Tensor, output_lse: torch.Tensor | None,
                      prefix_output: torch.Tensor, prefix_lse: torch.Tensor,
                      suffix_output: torch.Tensor, suffix_lse: torch.Tensor) -> None:
    if output.dim() != 3:
        raise ValueError(f"merge_attn_states: output must be [num_tokens, num_heads, head_size], "
                         f"got {list(output.shape)}")
    T, H, D = output.shape
    for name, x in (("prefix_output", prefix_output), ("suffix_output", suffix_output)):
        if x.shape != output.shape:
            raise ValueError(f"merge_attn_states: {name} has shape {list(x.shape)}, output "
                             f"{list(output.shape)}")
    lses = [("prefix_lse", prefix_lse), ("suffix_lse", suffix_lse)]
    if output_lse is not None:
        lses.append(("output_lse", output_lse))
    for name, x in lses:
        if tuple(x.shape) != (H, T):
            raise ValueError(f"merge_attn_states: {name} has shape {list(x.shape)}, expected "
                             f"{[H, T]} (num_heads, num_tokens)")
    R = T * H
    if R == 0:
        return None
    br, bd, warps = _tiles(R, D, output.device.type != "cpu")
    olse = output_lse if output_lse is not None else prefix_lse
    _merge_kernel[(triton.cdiv(R, br),)](
        output, olse, prefix_output, prefix_lse, suffix_output, suffix_lse, R, H, D,
        *output.stride(), *prefix_output.stride(), *suffix_output.stride(),
        *olse.stride(), *prefix_lse.stride(), *suffix_lse.stride(),
        HAS_LSE=output_lse is not None, BR=br, BD=bd, num_warps=warps)
    return None
