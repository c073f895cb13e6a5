"""Shipped solution for vLLM's shuffle_rows: one 2-D gather-copy kernel.

A program owns a [BR destination rows, BC columns] tile of `output_tensor`: it loads the BR map
entries once, then copies the matching [BR, BC] tile of `input_tensor` (each row a contiguous
run: coalesced loads and stores). Values move bit for bit in their own dtype. Offsets are 64-bit
(rows * hidden_size can pass 2**31); tensors are addressed through their strides.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _shuffle_rows_kernel(src_ptr, map_ptr, dst_ptr, R, C, s_row, s_col, d_row, d_col,
                         map_stride, n_col_blocks, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_c = pid - pid_r * n_col_blocks
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_c.to(tl.int64) * BC + tl.arange(0, BC)
    r_ok = rows < R
    src_rows = tl.load(map_ptr + rows * map_stride, mask=r_ok, other=0).to(tl.int64)
    m = r_ok[:, None] & (cols < C)[None, :]
    v = tl.load(src_ptr + (src_rows[:, None] * s_row + cols[None, :] * s_col), mask=m)
    tl.store(dst_ptr + (rows[:, None] * d_row + cols[None, :] * d_col), v, mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(R, C, gpu):
    """(BR, BC, num_warps)."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bc = min(_pow2(C), 65536)
        br = min(_pow2(R), max(1, 262144 // bc))
        return br, bc, 4
    # 4096-element tiles (16 per thread at 8 warps), row segments of up to 2048 columns; few
    # rows (decoding) get smaller tiles so that more programs share the GPU.
    bc = min(_pow2(C), 2048)
    br = min(_pow2(R), max(1, 4096 // bc))
    while br * bc > 512 and triton.cdiv(R, br) * triton.cdiv(C, bc) < 264:
        if br > 1:
            br //= 2
        else:
            bc //= 2
    return br, bc, 8 if br * bc >= 4096 else 4


def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor,
                 output_tensor: torch.Tensor) -> None:
    if input_tensor.dim() != 2 or output_tensor.dim() != 2 or dst2src_map.dim() != 1:
        raise RuntimeError("shuffle_rows(): input_tensor and output_tensor must be 2-D and "
                           "dst2src_map 1-D")
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(f"shuffle_rows(): output_tensor is {output_tensor.dtype}, "
                           f"input_tensor {input_tensor.dtype}")
    R, C = output_tensor.shape
    if dst2src_map.shape[0] != R or input_tensor.shape[1] != C:
        raise RuntimeError(f"shuffle_rows(): output_tensor {list(output_tensor.shape)} does not "
                           f"match dst2src_map {list(dst2src_map.shape)} and input_tensor "
                           f"{list(input_tensor.shape)}")
    if dst2src_map.dtype not in (torch.int32, torch.int64):
        raise RuntimeError("shuffle_rows(): dst2src_map must be int32 (int64 is accepted too)")
    if output_tensor.numel() == 0:
        return None
    br, bc, warps = _tiles(R, C, input_tensor.device.type != "cpu")
    n_col_blocks = triton.cdiv(C, bc)
    grid = (triton.cdiv(R, br) * n_col_blocks,)
    _shuffle_rows_kernel[grid](input_tensor, dst2src_map, output_tensor, R, C,
                               input_tensor.stride(0), input_tensor.stride(1),
                               output_tensor.stride(0), output_tensor.stride(1),
                               dst2src_map.stride(0), n_col_blocks, BR=br, BC=bc,
                               num_warps=warps)
    return None
