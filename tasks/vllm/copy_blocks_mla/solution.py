"""Shipped solution for vLLM's copy_blocks_mla: one Triton kernel launch per group of up to 8
layers.

As vLLM does, a block is copied as its memory footprint: the N = kv_caches[0].stride(0) elements
starting at block * N, padding included. That run holds every element of the block whatever the
cache's padding or order inside a block (the layouts vLLM allocates), so the copy is one flat,
contiguous run: a program owns one chunk of BLOCK elements of one (pair, layer), loads the pair's
block numbers once and copies the chunk with 16-byte vectors (Triton sees N's divisibility by 16
from the argument).

A kernel cannot index a list of tensors, and a candidate may not read their addresses into a
pointer table, so the layers of one launch come as eight pointer arguments (unused ones repeat
layer 0) and the third grid axis picks one. Block numbers are int64 and offsets 64-bit: a layer's
cache can pass 2**31 elements.
"""

import torch
import triton
import triton.language as tl

_LAYERS_PER_LAUNCH = 8


@triton.jit
def _copy_blocks_mla_kernel(c0, c1, c2, c3, c4, c5, c6, c7, map_ptr, map_s0, map_s1, N,
                            BLOCK: tl.constexpr):
    pair = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    layer = tl.program_id(2)
    cp = c0
    if layer == 1:
        cp = c1
    if layer == 2:
        cp = c2
    if layer == 3:
        cp = c3
    if layer == 4:
        cp = c4
    if layer == 5:
        cp = c5
    if layer == 6:
        cp = c6
    if layer == 7:
        cp = c7
    src = tl.load(map_ptr + pair * map_s0).to(tl.int64)
    dst = tl.load(map_ptr + pair * map_s0 + map_s1).to(tl.int64)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    tl.store(cp + (dst * N + offs), tl.load(cp + (src * N + offs), mask=mask), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tile(N: int, itemsize: int, gpu: bool) -> tuple[int, int]:
    """(BLOCK, num_warps) for block footprints of N elements."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large chunks.
        return min(_pow2(N), 65536), 4
    # 16 KiB per program: 8 warps, eight 16-byte vectors in flight per thread.
    block = min(_pow2(N), max(1, 16384 // itemsize))
    return block, 8 if block * itemsize >= 8192 else 4


def copy_blocks_mla(kv_caches: list[torch.Tensor], block_mapping: torch.Tensor) -> None:
    L = len(kv_caches)
    if L == 0:
        return None
    if block_mapping.dim() != 2 or block_mapping.shape[1] != 2:
        raise RuntimeError("copy_blocks_mla: block_mapping must be [num_pairs, 2], got "
                           f"{list(block_mapping.shape)}")
    first = kv_caches[0]
    for c in kv_caches:
        if (c.dtype, c.device, c.shape, c.stride()) != (first.dtype, first.device, first.shape,
                                                        first.stride()):
            raise RuntimeError("copy_blocks_mla: every cache must have the dtype, device, shape "
                               "and strides of kv_caches[0]")
    if first.dim() == 0:
        raise RuntimeError("copy_blocks_mla: a cache must be [num_blocks, ...]")
    P, N = block_mapping.shape[0], first.stride(0)
    if P == 0 or first.numel() == 0:
        return None
    block, warps = _tile(N, first.element_size(), first.device.type != "cpu")
    for g in range(0, L, _LAYERS_PER_LAUNCH):
        cs = list(kv_caches[g:g + _LAYERS_PER_LAUNCH])
        n = len(cs)
        cs += [cs[0]] * (_LAYERS_PER_LAUNCH - n)
        grid = (P, triton.cdiv(N, block), n)
        _copy_blocks_mla_kernel[grid](*cs, block_mapping, block_mapping.stride(0),
                                      block_mapping.stride(1), N, BLOCK=block, num_warps=warps)
    return None
