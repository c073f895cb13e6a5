"""Shipped solution for vLLM's moe_sum: one Triton kernel, one pass over `input`.

A program owns a [BT tokens, BH columns] tile of `output`. For each of the `topk` experts it
loads the matching [BT, BH] tile of `input` (a contiguous run of each row: coalesced), adds it
in float32, and stores the tile once, rounded to the output dtype. `topk` is a compile-time
constant, so the loop is unrolled and all of a program's loads are in flight together, which is
what a bandwidth-bound sum needs. Tensors are read and written through their strides, with
64-bit offsets (num_tokens * topk * hidden_size can pass 2**31).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _moe_sum_kernel(x_ptr, y_ptr, T, H, sx_t, sx_k, sx_h, sy_t, sy_h, n_col_blocks,
                    TOPK: tl.constexpr, BT: tl.constexpr, BH: tl.constexpr):
    pid = tl.program_id(0)
    pid_t = pid // n_col_blocks
    pid_h = pid - pid_t * n_col_blocks
    toks = pid_t.to(tl.int64) * BT + tl.arange(0, BT)
    cols = pid_h.to(tl.int64) * BH + tl.arange(0, BH)
    mask = (toks < T)[:, None] & (cols < H)[None, :]
    x_off = toks[:, None] * sx_t + cols[None, :] * sx_h
    acc = tl.zeros([BT, BH], tl.float32)
    for k in tl.static_range(TOPK):
        acc += tl.load(x_ptr + (x_off + k * sx_k), mask=mask, other=0.0).to(tl.float32)
    y_off = toks[:, None] * sy_t + cols[None, :] * sy_h
    tl.store(y_ptr + y_off, acc.to(y_ptr.dtype.element_ty), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(T, H, topk, gpu):
    """(BT, BH, num_warps)."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bh = min(_pow2(H), 16384)
        bt = min(_pow2(T), max(1, 262144 // (bh * _pow2(topk))))
        return bt, bh, 4
    # 2048-element tiles (8 per thread at 8 warps), a row segment of up to 1024 columns;
    # narrow rows stack several tokens per tile so that every program still moves a full tile.
    bh = min(_pow2(H), 1024)
    bt = min(_pow2(T), max(1, 2048 // bh))
    # Few tokens (decoding): smaller tiles so that more programs share the GPU.
    while bt * bh > 256 and triton.cdiv(T, bt) * triton.cdiv(H, bh) < 264:
        if bt > 1:
            bt //= 2
        else:
            bh //= 2
    return bt, bh, 8 if bt * bh >= 2048 else 4


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    if input.dim() != 3 or output.dim() != 2:
        raise RuntimeError("moe_sum(): input must be [num_tokens, topk, hidden_size] and "
                           "output [num_tokens, hidden_size]")
    T, topk, H = input.shape
    if tuple(output.shape) != (T, H):
        raise RuntimeError(f"moe_sum(): output has shape {list(output.shape)}, expected "
                           f"{[T, H]} for input of shape {list(input.shape)}")
    if output.dtype != input.dtype:
        raise RuntimeError(f"moe_sum(): output is {output.dtype}, input {input.dtype}")
    if output.numel() == 0:
        return None
    bt, bh, warps = _tiles(T, H, topk, input.device.type != "cpu")
    n_col_blocks = triton.cdiv(H, bh)
    grid = (triton.cdiv(T, bt) * n_col_blocks,)
    _moe_sum_kernel[grid](input, output, T, H, input.stride(0), input.stride(1),
                          input.stride(2), output.stride(0), output.stride(1), n_col_blocks,
                          TOPK=topk, BT=bt, BH=bh, num_warps=warps)
    return None
