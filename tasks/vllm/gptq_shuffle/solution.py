"""Shipped solution for vLLM's gptq_shuffle: one Triton kernel (plus a copy when there is a
permutation).

A program owns a tile of [BG groups, BN columns], a group being one output word (bit 2, 4, 8)
or one 3-word group (bit 3) of a column; columns are contiguous, so every load and store of a
tile row is coalesced. Each output is assembled in registers from its 32 / bit (32 for bit 3)
values, one statically unrolled step per value: the value is extracted from its source word
(shift and mask, two words for the 3-bit values that straddle a boundary) and OR-ed into its
ExLlama slot.

- Without a permutation a group only reads its own words, so the kernel rewrites q_weight in
  place (each word read once, written once).
- With a permutation, value j of group g comes from row q_perm[32 g / (32 / bit) ...]: the
  source words are gathered (one coalesced row segment per value), so the result cannot be
  written over the words other programs still read: it goes to a scratch buffer, which a second
  Triton kernel copies back.

Words are handled as uint32 (bitcast), so shifts are logical. Bit positions inside the unrolled
loops are inline constexpr expressions of the loop index (or returned by a helper): a
`NAME: tl.constexpr = ...` in a loop body is a reassignment, which the compiler rejects.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _slot(j: tl.constexpr, BITS: tl.constexpr):
    # Output bit position of value j of a word, bit 2/4/8 (ExLlama's even/odd split).
    if BITS == 8:
        return j * 8
    else:
        return (j // 2) * BITS + (j % 2) * 16


@triton.jit
def _pos3(j: tl.constexpr):
    # Output bit position of 3-bit value j < 30 within its word (10 values a word).
    return ((j % 10) // 2) * 3 + ((j % 10) % 2) * 16


@triton.jit
def _shuffle_kernel(src_ptr, dst_ptr, perm_ptr, G, N,
                    BITS: tl.constexpr, HAS_PERM: tl.constexpr,
                    BG: tl.constexpr, BN: tl.constexpr):
    g = tl.program_id(0).to(tl.int64) * BG + tl.arange(0, BG)
    n = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    g_ok = g < G
    m = g_ok[:, None] & (n < N)[None, :]
    col = n[None, :]
    if BITS == 3:
        base = (3 * g)[:, None] * N + col  # word 0 of the group
        if not HAS_PERM:
            w0 = tl.load(src_ptr + base, mask=m, other=0).to(tl.uint32, bitcast=True)
            w1 = tl.load(src_ptr + base + N, mask=m, other=0).to(tl.uint32, bitcast=True)
            w2 = tl.load(src_ptr + base + 2 * N, mask=m, other=0).to(tl.uint32, bitcast=True)
        a0 = tl.zeros([BG, BN], tl.uint32)
        a1 = tl.zeros([BG, BN], tl.uint32)
        a2 = tl.zeros([BG, BN], tl.uint32)
        for j in tl.static_range(32):
            if HAS_PERM:
                k = tl.load(perm_ptr + g * 32 + j, mask=g_ok, other=0).to(tl.int64)
                p = 3 * (k % 32)
                wi = p // 32
                s = (p % 32).to(tl.uint32)
                row = 3 * (k // 32) + wi
                lo = tl.load(src_ptr + row[:, None] * N + col, mask=m, other=0)
                lo = lo.to(tl.uint32, bitcast=True)
                two = s > 29
                hi = tl.load(src_ptr + (row + 1)[:, None] * N + col, mask=m & two[:, None],
                             other=0).to(tl.uint32, bitcast=True)
                sh = tl.where(two, 32 - s, 0)
                v = ((lo >> s[:, None]) | (hi << sh[:, None])) & 7
            else:
                # Word 3j // 32, bit 3j % 32, written inline: a constexpr annotation inside
                # the unrolled loop would be a reassignment, which the compiler rejects.
                if (3 * j) // 32 == 0:
                    lo = w0
                    hi = w1
                elif (3 * j) // 32 == 1:
                    lo = w1
                    hi = w2
                else:
                    lo = w2
                    hi = w2
                if (3 * j) % 32 > 29:
                    v = ((lo >> ((3 * j) % 32)) | (hi << (32 - (3 * j) % 32))) & 7
                else:
                    v = (lo >> ((3 * j) % 32)) & 7
            if j < 30:
                if j < 10:
                    a0 |= v << _pos3(j)
                elif j < 20:
                    a1 |= v << _pos3(j)
                else:
                    a2 |= v << _pos3(j)
            else:
                a0 |= (v & 1) << (15 + 16 * (j - 30))
                a1 |= ((v >> 1) & 1) << (15 + 16 * (j - 30))
                a2 |= ((v >> 2) & 1) << (15 + 16 * (j - 30))
        tl.store(dst_ptr + base, a0.to(tl.int32, bitcast=True), mask=m)
        tl.store(dst_ptr + base + N, a1.to(tl.int32, bitcast=True), mask=m)
        tl.store(dst_ptr + base + 2 * N, a2.to(tl.int32, bitcast=True), mask=m)
    else:
        PER: tl.constexpr = 32 // BITS
        MASK: tl.constexpr = (1 << BITS) - 1
        here = g[:, None] * N + col
        if not HAS_PERM:
            w = tl.load(src_ptr + here, mask=m, other=0).to(tl.uint32, bitcast=True)
        acc = tl.zeros([BG, BN], tl.uint32)
        for j in tl.static_range(PER):
            if HAS_PERM:
                k = tl.load(perm_ptr + g * PER + j, mask=g_ok, other=0).to(tl.int64)
                s = ((k % PER) * BITS).to(tl.uint32)
                src = tl.load(src_ptr + (k // PER)[:, None] * N + col, mask=m, other=0)
                v = (src.to(tl.uint32, bitcast=True) >> s[:, None]) & MASK
            else:
                v = (w >> (j * BITS)) & MASK
            acc |= v << _slot(j, BITS)
        tl.store(dst_ptr + here, acc.to(tl.int32, bitcast=True), mask=m)


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def gptq_shuffle(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None:
    if bit not in (2, 3, 4, 8):
        raise ValueError(f"gptq_shuffle: bit {bit} is not 2, 3, 4 or 8")
    if q_weight.dim() != 2 or q_weight.dtype != torch.int32 or not q_weight.is_contiguous():
        raise ValueError("gptq_shuffle: q_weight must be a contiguous int32 [K * bit / 32, N]")
    R, N = q_weight.shape
    words = 3 if bit == 3 else 1
    if R % words != 0:
        raise ValueError(f"gptq_shuffle: 3-bit q_weight needs a multiple of 3 rows, got {R}")
    G = R // words  # output groups per column
    if G == 0 or N == 0:
        return None
    has_perm = q_perm.numel() > 0
    if has_perm:
        K = R * 32 // bit
        if q_perm.numel() != K:
            raise ValueError(f"gptq_shuffle: q_perm must have {K} elements, got "
                             f"{q_perm.numel()}")
        perm = q_perm.reshape(-1)
        if perm.stride(0) != 1:
            perm = perm.contiguous()
        dst = torch.empty_like(q_weight)
    else:
        perm, dst = q_weight, q_weight
    gpu = q_weight.device.type != "cpu"
    if gpu:
        bn = min(_pow2(N), 256)
        bg = min(_pow2(G), max(1, 1024 // bn))
        warps = 4
    else:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        bn = min(_pow2(N), 4096)
        bg = min(_pow2(G), max(1, 16384 // bn))
        warps = 4
    grid = (triton.cdiv(G, bg), triton.cdiv(N, bn))
    _shuffle_kernel[grid](q_weight, dst, perm, G, N, BITS=bit, HAS_PERM=has_perm,
                          BG=bg, BN=bn, num_warps=warps)
    if has_perm:
        total = q_weight.numel()
        block = 4096 if gpu else 65536
        _copy_kernel[(triton.cdiv(total, block),)](dst, q_weight, total, BLOCK=block,
                                                    num_warps=8)
    return None
