"""Shipped solution for vLLM's copy_blocks: one Triton kernel launch per group of up to 8 layers.

Each cache is contiguous, so a block is one run of N = cache[0].numel() elements starting at
block * N, and a block copy is a flat copy of that run. A program owns one chunk of BLOCK
elements of one (pair, layer): it loads the pair's source and destination block numbers once and
copies the chunk of the key cache and then of the value cache, contiguous loads and stores (16-byte
vectors when N is a multiple of 16, which Triton sees from the argument's divisibility).

A kernel cannot index a list of tensors, and a candidate may not read their addresses into a
pointer table, so the layers of one launch come as eight key and eight value pointer arguments
(unused ones repeat layer 0) and the third grid axis picks one. Eight layers per launch keeps a
deep model's launches few (80 layers: 10 launches) without a kernel of hundreds of arguments.
Block numbers are int64 and offsets 64-bit: a layer's cache can pass 2**31 elements.
"""

import torch
import triton
import triton.language as tl

_LAYERS_PER_LAUNCH = 8


@triton.jit
def _copy_blocks_kernel(k0, k1, k2, k3, k4, k5, k6, k7, v0, v1, v2, v3, v4, v5, v6, v7,
                        map_ptr, map_s0, map_s1, N, BLOCK: tl.constexpr):
    pair = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    layer = tl.program_id(2)
    kp = k0
    vp = v0
    if layer == 1:
        kp = k1
        vp = v1
    if layer == 2:
        kp = k2
        vp = v2
    if layer == 3:
        kp = k3
        vp = v3
    if layer == 4:
        kp = k4
        vp = v4
    if layer == 5:
        kp = k5
        vp = v5
    if layer == 6:
        kp = k6
        vp = v6
    if layer == 7:
        kp = k7
        vp = v7
    src = tl.load(map_ptr + pair * map_s0).to(tl.int64)
    dst = tl.load(map_ptr + pair * map_s0 + map_s1).to(tl.int64)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    s_off = src * N + offs
    d_off = dst * N + offs
    tl.store(kp + d_off, tl.load(kp + s_off, mask=mask), mask=mask)
    tl.store(vp + d_off, tl.load(vp + s_off, mask=mask), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tile(N: int, itemsize: int, gpu: bool) -> tuple[int, int]:
    """(BLOCK, num_warps) for blocks of N elements."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large chunks.
        return min(_pow2(N), 65536), 4
    # 16 KiB per program: 8 warps, four 16-byte vectors in flight per thread and cache.
    block = min(_pow2(N), max(1, 16384 // itemsize))
    return block, 8 if block * itemsize >= 8192 else 4


def copy_blocks(key_caches: list[torch.Tensor], value_caches: list[torch.Tensor],
                block_mapping: torch.Tensor) -> None:
    L = len(key_caches)
    if len(value_caches) != L:
        raise RuntimeError(f"copy_blocks: {L} key caches but {len(value_caches)} value caches")
    if L == 0:
        return None
    if block_mapping.dim() != 2 or block_mapping.shape[1] != 2:
        raise RuntimeError("copy_blocks: block_mapping must be [num_pairs, 2], got "
                           f"{list(block_mapping.shape)}")
    first = key_caches[0]
    N = first[0].numel() if first.dim() and first.shape[0] else 0
    for c in list(key_caches) + list(value_caches):
        if c.dtype != first.dtype or c.device != first.device:
            raise RuntimeError("copy_blocks: every cache must have the dtype and device of "
                               "key_caches[0]")
        if not c.is_contiguous():
            raise RuntimeError("copy_blocks: the caches must be contiguous")
        if c.dim() == 0 or (c.shape[0] and c[0].numel() != N):
            raise RuntimeError(f"copy_blocks: every cache block must have {N} elements, as "
                               "key_caches[0]'s")
    P = block_mapping.shape[0]
    if P == 0 or N == 0:
        return None
    block, warps = _tile(N, first.element_size(), first.device.type != "cpu")
    for g in range(0, L, _LAYERS_PER_LAUNCH):
        ks = list(key_caches[g:g + _LAYERS_PER_LAUNCH])
        vs = list(value_caches[g:g + _LAYERS_PER_LAUNCH])
        n = len(ks)
        ks += [ks[0]] * (_LAYERS_PER_LAUNCH - n)
        vs += [vs[0]] * (_LAYERS_PER_LAUNCH - n)
        grid = (P, triton.cdiv(N, block), n)
        _copy_blocks_kernel[grid](*ks, *vs, block_mapping, block_mapping.stride(0),
                                  block_mapping.stride(1), N, BLOCK=block, num_warps=warps)
    return None
