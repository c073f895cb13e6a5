"""Shipped solution for vLLM's gptq_marlin_gemm (the covered uint4b8 grouped subset): one Triton
GEMM kernel that dequantizes Marlin's tiled weight on the fly.

A program computes a BM x BN block of the output. For each BK slice of K it loads the activations
and, for every (k, n) of the BK x BN weight slice, the Marlin word that holds q[k, n] (word
[k // 16, 128 (n // 64) + 16 (n % 8) + 4 ((k % 8) // 2) + (n % 64) // 16], nibble
(k % 16) // 8 + 2 ((n % 16) // 8) + 4 (k % 2)) and the scale of its group (column
64 (n // 64) + 8 (n % 8) + (n % 64) // 8 of b_scales row k // G). The weight
w = dt((q - 8) * s) is formed in float32 and rounded once to the activation dtype, then multiplied
with tl.dot, accumulating in float32; the result is rounded once to the activation dtype.

Roundings to bfloat16 are done with integer arithmetic (round to nearest even), because the CPU
interpreter converts float32 to bfloat16 by truncation; the value is then exact in bfloat16. On
the interpreter the dot runs on float32 operands (holding exact fp16/bf16 values), since its
bfloat16 dot is not reliable; on a GPU the operands are fp16/bf16.
"""

import torch
import triton
import triton.language as tl

UINT4B8_ID = (4 << 8) | (8 << 17) | (1 << 50)


@triton.jit
def _round_bf16(x):
    # float32 -> float32 holding the nearest bfloat16 (ties to even); finite inputs.
    b = x.to(tl.uint32, bitcast=True)
    b = b + 0x7FFF + ((b >> 16) & 1)
    b = (b >> 16) << 16
    return b.to(tl.float32, bitcast=True)


@triton.jit
def _gemm_kernel(a_ptr, q_ptr, s_ptr, o_ptr, M, N, K, G, s_am, s_ak, s_om,
                 IS_BF16: tl.constexpr, FP32_DOT: tl.constexpr,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    m_ok = rm < M
    n_ok = rn < N
    # Per-column parts of the Marlin word index, nibble and scale column.
    n_word = 128 * (rn // 64) + 16 * (rn % 8) + (rn % 64) // 16
    n_slot = 2 * ((rn % 16) // 8)
    s_col = 64 * (rn // 64) + 8 * (rn % 8) + (rn % 64) // 8
    q_row = 2 * N  # words per row of b_q_weight
    acc = tl.zeros([BM, BN], tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        k_ok = rk < K
        a = tl.load(a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak,
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        k_word = (rk // 16) * q_row + 4 * ((rk % 8) // 2)
        k_slot = (rk % 16) // 8 + 4 * (rk % 2)
        wk = k_ok[:, None] & n_ok[None, :]
        word = tl.load(q_ptr + k_word[:, None] + n_word[None, :], mask=wk, other=0)
        word = word.to(tl.uint32, bitcast=True)
        shift = (4 * (k_slot[:, None] + n_slot[None, :])).to(tl.uint32)
        qv = ((word >> shift) & 0xF).to(tl.int32) - 8
        sc = tl.load(s_ptr + (rk // G)[:, None] * N + s_col[None, :], mask=wk, other=0.0)
        w = qv.to(tl.float32) * sc.to(tl.float32)  # exact: a 4-bit integer times a scale
        if IS_BF16:
            w = _round_bf16(w)
            if FP32_DOT:
                acc += tl.dot(a.to(tl.float32), w)
            else:
                acc += tl.dot(a, w.to(tl.bfloat16))
        else:
            if FP32_DOT:
                acc += tl.dot(a.to(tl.float32), w.to(tl.float16).to(tl.float32))
            else:
                acc += tl.dot(a, w.to(tl.float16))
    om = m_ok[:, None] & n_ok[None, :]
    if IS_BF16:
        res = _round_bf16(acc).to(tl.bfloat16)
    else:
        res = acc.to(tl.float16)
    tl.store(o_ptr + rm[:, None] * s_om + rn[None, :], res, mask=om)


def _empty(t) -> bool:
    return t is None or t.numel() == 0


def gptq_marlin_gemm(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, a_scales, global_scale,
                     b_zeros_or_none, g_idx_or_none, perm_or_none, workspace, b_type_id, size_m,
                     size_n, size_k, is_k_full, use_atomic_add, use_fp32_reduce, is_zp_float):
    if b_type_id != UINT4B8_ID:
        raise NotImplementedError("only scalar_types.uint4b8 is covered")
    if not (_empty(c_or_none) and _empty(b_bias_or_none) and _empty(a_scales)
            and _empty(global_scale) and _empty(b_zeros_or_none) and _empty(g_idx_or_none)
            and _empty(perm_or_none) and is_k_full and not is_zp_float):
        raise NotImplementedError("only the grouped uint4b8 path without extras is covered")
    M, N, K = int(size_m), int(size_n), int(size_k)
    if a.dtype not in (torch.float16, torch.bfloat16) or b_scales.dtype != a.dtype:
        raise ValueError("a and b_scales must be float16 or bfloat16 of one dtype")
    if K % 16 or N % 64 or tuple(b_q_weight.shape) != (K // 16, 2 * N):
        raise ValueError(f"b_q_weight must be int32 [{K // 16}, {2 * N}] (K % 16, N % 64)")
    groups = b_scales.shape[0]
    if groups < 2 or K % groups or tuple(b_scales.shape) != (groups, N):
        raise NotImplementedError("only grouped scales [K / G, N] with G < K are covered")
    if not (b_q_weight.is_contiguous() and b_scales.is_contiguous()):
        raise ValueError("b_q_weight and b_scales must be contiguous")
    G = K // groups
    a2 = a.reshape(M, K)
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return out
    gpu = a.device.type != "cpu"
    if gpu:
        bm = 16 if M <= 16 else (64 if M <= 64 else 128)
        bn, bk, warps = 128, 64, 4 if M <= 64 else 8
    else:
        bm = max(16, min(triton.next_power_of_2(M), 64))
        bn, bk, warps = min(triton.next_power_of_2(N), 256), 128, 4
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _gemm_kernel[grid](a2, b_q_weight, b_scales, out, M, N, K, G, a2.stride(0), a2.stride(1),
                       out.stride(0), IS_BF16=a.dtype == torch.bfloat16, FP32_DOT=not gpu,
                       BM=bm, BN=bn, BK=bk, num_warps=warps)
    return out
