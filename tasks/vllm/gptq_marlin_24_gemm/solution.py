"""Shipped solution for vLLM's gptq_marlin_24_gemm: one Triton GEMM kernel that rebuilds the
dense weight slice from the 2:4-sparse Marlin layout on the fly and multiplies it with tl.dot.

A program owns a BM x BN block of the output and walks K (the dense rows) in BK steps. For every
(k, n) of the BK x BN weight slice it
- reads the 4-bit code of quad k // 4 of column n from b_meta (int16 word k // 16 of column n,
  at row (k // 16) // 2, column 128 (n // 64) + 64 ((n % 4) // 2) + 8 ((n % 64) // 8)
  + 4 (n % 2) + 2 ((k // 16) % 2) + (n % 8) // 4, bits 4 ((k // 4) % 4) ..): its two 2-bit
  fields are the kept positions of the quad;
- if k % 4 is one of them (slot j = 0 for the low field, 1 for the high one), loads the
  compressed value kc = 2 (k // 4) + j from b_q_weight (Marlin's tiled word and nibble / byte),
  else the weight is zero;
- multiplies (q - bias) by the scale of its column (one row of b_scales for the whole step:
  BK divides the group size 128, and K for per-column scales), exactly in float32.
The slice is rounded to float16 for the tensor cores (as vLLM does) and accumulated in float32;
the result is rounded once to float16. On the CPU interpreter the dot runs on float32 operands
holding the same float16 values (its float16 dot is not exact).
"""

import torch
import triton
import triton.language as tl

UINT4B8_ID = (4 << 8) | (8 << 17) | (1 << 50)
UINT8B128_ID = (8 << 8) | (128 << 17) | (1 << 50)


@triton.jit
def _marlin24_kernel(a_ptr, q_ptr, m_ptr, s_ptr, o_ptr, M, N, K, G, WPR, s_am, s_ak, s_om,
                     BITS: tl.constexpr, GROUPED: tl.constexpr, FP32_DOT: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    m_ok = rm < M
    n_ok = rn < N
    # Per-column parts of the metadata column, the weight word and shift, and the scale column.
    m_col = 128 * (rn // 64) + 64 * ((rn % 4) // 2) + 8 * ((rn % 64) // 8) + 4 * (rn % 2) \
        + (rn % 8) // 4
    if BITS == 4:
        n_word = 128 * (rn // 64) + 32 * ((rn % 64) // 16) + 16 * ((rn % 16) // 8) + rn % 4
        n_shift = 8 * ((rn % 8) // 4)
    else:
        n_word = 256 * (rn // 64) + 64 * ((rn % 64) // 16) + 32 * ((rn % 16) // 8) \
            + 2 * (rn % 4) + (rn % 8) // 4
        n_shift = rn * 0
    if GROUPED:
        s_col = 8 * (rn // 8) + 2 * (rn % 4) + (rn % 8) // 4
    else:
        s_col = rn
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK).to(tl.int64)
        k_ok = rk < K
        kn_ok = k_ok[:, None] & n_ok[None, :]
        a = tl.load(a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak,
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        # Quad codes: metadata word c = k // 16, field (k // 4) % 4.
        c = rk // 16
        meta = tl.load(m_ptr + ((c // 2) * (2 * N) + 2 * (c % 2))[:, None] + m_col[None, :],
                       mask=kn_ok, other=0)
        meta = meta.to(tl.int32) & 0xFFFF
        code = (meta >> (4 * ((rk // 4) % 4)).to(tl.int32)[:, None]) & 0xF
        pos = (rk % 4).to(tl.int32)[:, None]
        is0 = (code & 3) == pos
        is1 = (code >> 2) == pos
        kept = (is0 | is1) & kn_ok
        kc = 2 * (rk // 4)[:, None] + is1.to(tl.int64)  # compressed row [BK, BN]
        if BITS == 4:
            word_i = (kc // 16) * WPR + 4 * ((kc % 8) // 2) + n_word[None, :]
            shift = 4 * (4 * (kc % 2) + (kc % 16) // 8) + n_shift[None, :]
        else:
            word_i = (kc // 16) * WPR + 8 * ((kc % 8) // 2) + n_word[None, :]
            shift = 8 * (2 * (kc % 2) + (kc % 16) // 8) + n_shift[None, :]
        word = tl.load(q_ptr + word_i, mask=kept, other=0).to(tl.uint32, bitcast=True)
        q = ((word >> shift.to(tl.uint32)) & ((1 << BITS) - 1)).to(tl.int32) - (1 << (BITS - 1))
        sc = tl.load(s_ptr + (k0 // G) * N + s_col, mask=n_ok, other=0.0).to(tl.float32)
        w = tl.where(kept, q.to(tl.float32) * sc[None, :], 0.0)  # exact in float32
        if FP32_DOT:
            acc += tl.dot(a.to(tl.float32), w.to(tl.float16).to(tl.float32))
        else:
            acc += tl.dot(a, w.to(tl.float16))
    tl.store(o_ptr + rm[:, None] * s_om + rn[None, :], acc.to(tl.float16),
             mask=m_ok[:, None] & n_ok[None, :])


def gptq_marlin_24_gemm(a, b_q_weight, b_meta, b_scales, workspace, b_q_type, size_m, size_n,
                        size_k):
    if b_q_type == UINT4B8_ID:
        bits = 4
    elif b_q_type == UINT8B128_ID:
        bits = 8
    else:
        raise ValueError("b_q_type must be scalar_types.uint4b8.id or uint8b128.id")
    M, N, K = int(size_m), int(size_n), int(size_k)
    if a.dtype != torch.float16 or b_scales.dtype != torch.float16:
        raise ValueError("a and b_scales must be float16")
    if K % 128 or N % 128:
        raise ValueError("size_k and size_n must be multiples of 128")
    wpr = N * 16 * bits // 32
    if tuple(b_q_weight.shape) != (K // 32, wpr) or tuple(b_meta.shape) != (K // 32, 2 * N):
        raise ValueError("b_q_weight / b_meta shapes do not match size_k, size_n")
    if not (b_q_weight.is_contiguous() and b_meta.is_contiguous() and b_scales.is_contiguous()):
        raise ValueError("b_q_weight, b_meta and b_scales must be contiguous")
    groups = b_scales.shape[0]
    grouped = groups > 1
    if grouped and K // groups != 128:
        raise ValueError("grouped scales must have group size 128")
    G = 128 if grouped else K
    a2 = a.reshape(M, K)
    out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    if M == 0:
        return out
    gpu = a.device.type != "cpu"
    if gpu:
        bm = 16 if M <= 16 else (64 if M <= 64 else 128)
        bn, bk, warps = 128, 64, 4 if M <= 64 else 8
    else:
        bm = max(16, min(triton.next_power_of_2(M), 64))
        bn, bk, warps = min(N, 256), 128, 4
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _marlin24_kernel[grid](a2, b_q_weight, b_meta, b_scales, out, M, N, K, G, wpr,
                           a2.stride(0), a2.stride(1), out.stride(0),
                           BITS=bits, GROUPED=grouped, FP32_DOT=not gpu,
                           BM=bm, BN=bn, BK=bk, num_warps=warps)
    return out
