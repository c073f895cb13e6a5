"""Shipped solution for vLLM's swap_blocks: one Triton kernel launch for all pairs.

Both caches are contiguous, so block b of either is one run of N = src[0].numel() elements
starting at b * N, and a block copy is a flat copy of that run. A program owns one chunk of BLOCK
elements of one pair: it loads the pair's source and destination block numbers (through
block_mapping's strides, which may be 0 or transposed) and copies the chunk with contiguous
loads and stores (16-byte vectors when N is a multiple of 16 bytes' worth of elements, which
Triton sees from the argument's divisibility). Block numbers are int64 and offsets 64-bit: a
cache can pass 2**31 elements.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _swap_blocks_kernel(src_ptr, dst_ptr, map_ptr, map_s0, map_s1, N, BLOCK: tl.constexpr):
    pair = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    s_blk = tl.load(map_ptr + pair * map_s0).to(tl.int64)
    d_blk = tl.load(map_ptr + pair * map_s0 + map_s1).to(tl.int64)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    vals = tl.load(src_ptr + s_blk * N + offs, mask=mask)
    tl.store(dst_ptr + d_blk * N + offs, vals, mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tile(N: int, itemsize: int, gpu: bool) -> tuple[int, int]:
    """(BLOCK, num_warps) for blocks of N elements."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large chunks.
        return min(_pow2(N), 65536), 4
    # 16 KiB per program: 8 warps, four 16-byte vectors in flight per thread.
    block = min(_pow2(N), max(1, 16384 // itemsize))
    return block, 8 if block * itemsize >= 8192 else 4


def swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: torch.Tensor) -> None:
    if src.dim() == 0 or dst.dim() == 0:
        raise RuntimeError("swap_blocks: src and dst must be [num_blocks, ...] caches")
    if src.dtype != dst.dtype or src.device != dst.device:
        raise RuntimeError("swap_blocks: src and dst must have one dtype and device")
    if src.shape[1:] != dst.shape[1:]:
        raise RuntimeError(f"swap_blocks: block shapes differ: {list(src.shape[1:])} and "
                           f"{list(dst.shape[1:])}")
    if not (src.is_contiguous() and dst.is_contiguous()):
        raise RuntimeError("swap_blocks: src and dst must be contiguous")
    if block_mapping.dim() != 2 or block_mapping.shape[1] != 2:
        raise RuntimeError("swap_blocks: block_mapping must be [num_pairs, 2], got "
                           f"{list(block_mapping.shape)}")
    if block_mapping.dtype != torch.int64:
        raise RuntimeError("swap_blocks: block_mapping must be int64")
    N = 1
    for s in src.shape[1:]:
        N *= int(s)
    P = block_mapping.shape[0]
    if P == 0 or N == 0:
        return None
    block, warps = _tile(N, src.element_size(), src.device.type != "cpu")
    grid = (P, triton.cdiv(N, block))
    _swap_blocks_kernel[grid](src, dst, block_mapping, block_mapping.stride(0),
                              block_mapping.stride(1), N, BLOCK=block, num_warps=warps)
    return None
