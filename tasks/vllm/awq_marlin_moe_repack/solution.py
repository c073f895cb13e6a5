"""Shipped solution for vLLM's awq_marlin_moe_repack: one Triton kernel for all experts.

A program owns BLOCK consecutive output words of one tile row (expert e, tile row kt). For each
word it derives, with integer arithmetic, the lane/warp that Marlin gives it, and for each of its
pf slots (a static loop) the tile row kk and column nn of the value that goes there; the value is
read from the AWQ word of row k = kt * TK + kk holding column n = nt * TN + nn (word n // pf,
AWQ's interleaved field for n % pf), shifted out and OR-ed into the slot. Words are handled as
uint32 (bitcast), so shifts are logical. perm is not read, as in vLLM.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _repack_kernel(src_ptr, out_ptr, KT, ROW_WORDS, s_e, s_k, s_w,
                   BITS: tl.constexpr, A8: tl.constexpr, BLOCK: tl.constexpr):
    PF: tl.constexpr = 32 // BITS
    TK: tl.constexpr = 32 if A8 else 16
    TN: tl.constexpr = 32 if A8 else 64
    TW: tl.constexpr = TK * TN // PF
    MASK: tl.constexpr = (1 << BITS) - 1
    row = tl.program_id(0)  # e * KT + kt
    e = (row // KT).to(tl.int64)
    kt = (row % KT).to(tl.int64)
    o = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = o < ROW_WORDS
    nt = o // TW
    t = o % TW
    if BITS == 4:
        th = t // 4
        w = t % 4
        h = t * 0
    else:
        th = t // 8
        w = (t % 8) // 2
        h = t % 2
    if A8:
        r = 4 * (th % 4)
        c = (w // 2) * 16 + (w % 2) * 8 + th // 4
    else:
        r = 2 * (th % 4)
        c = w * 16 + th // 4
    acc = tl.zeros([BLOCK], tl.uint32)
    for s in tl.static_range(PF):
        if A8:
            if BITS == 4:
                kk = r + (s // 2) + 16 * (s % 2)
            else:
                kk = r + s + 16 * h
            nn = c
        else:
            if BITS == 4:
                # slot s holds v_j, j = 0 2 4 6 1 3 5 7; v_j: rows +0 +1 +8 +9, col +8 for j >= 4
                kk = r + ((2 * s + s // 4) % 4 % 2) + 8 * ((2 * s + s // 4) % 4 // 2)
                nn = c + 8 * ((2 * s + s // 4) // 4 % 2)
            else:
                kk = r + 8 * (s % 2) + (s // 2)
                nn = c + 8 * h
        k = kt * TK + kk
        n = nt * TN + nn
        j = n % PF
        field = (j % 2) * (PF // 2) + j // 2  # AWQ's interleave: 0 4 1 5 2 6 3 7 / 0 2 1 3
        word = tl.load(src_ptr + e * s_e + k * s_k + (n // PF) * s_w, mask=ok, other=0)
        word = word.to(tl.uint32, bitcast=True)
        v = (word >> (field * BITS).to(tl.uint32)) & MASK
        acc |= v << (s * BITS)
    tl.store(out_ptr + row.to(tl.int64) * ROW_WORDS + o, acc.to(tl.int32, bitcast=True), mask=ok)


def awq_marlin_moe_repack(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int,
                          size_n: int, num_bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    if num_bits not in (4, 8):
        raise ValueError(f"num_bits must be 4 or 8, got {num_bits}")
    pf = 32 // num_bits
    E = b_q_weight.shape[0]
    K, N = int(size_k), int(size_n)
    if K % 16 or N % 64 or (is_a_8bit and K % 32):
        raise ValueError("size_k must be a multiple of 16 (32 with is_a_8bit), size_n of 64")
    if b_q_weight.dtype != torch.int32 or tuple(b_q_weight.shape) != (E, K, N // pf):
        raise ValueError(f"b_q_weight must be int32 [E, {K}, {N // pf}]")
    out = torch.empty((E, K // 16, N * 16 // pf), dtype=torch.int32, device=b_q_weight.device)
    if out.numel() == 0:
        return out
    tk = 32 if is_a_8bit else 16
    kt_count = K // tk
    row_words = N * tk // pf
    gpu = b_q_weight.device.type != "cpu"
    block = min(triton.next_power_of_2(row_words), 1024 if gpu else 16384)
    grid = (E * kt_count, triton.cdiv(row_words, block))
    s_e, s_k, s_w = b_q_weight.stride()
    _repack_kernel[grid](b_q_weight, out, kt_count, row_words, s_e, s_k, s_w,
                         BITS=num_bits, A8=bool(is_a_8bit), BLOCK=block, num_warps=4)
    return out
