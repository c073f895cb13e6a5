"""Shipped solution for vLLM's awq_gemm: one Triton kernel that dequantizes the 4-bit weight tile
by tile and multiplies it with tl.dot.

A program owns a [BM, BN] tile of the output and walks K in BK steps, BK dividing the group size
G, so one step lies in one group: its zero points and scales are one [BN] vector each. The
weight tile [BK, BN] is read from the packed words (each word holds 8 consecutive output
columns, column j at bits 4 * [0, 4, 1, 5, 2, 6, 3, 7][j]), unpacked with a per-column shift and
mask, dequantized as (q - z) * s in float32 and rounded to float16 for the tensor-core product
(float32 accumulation). On the CPU interpreter the product is taken in float32 instead (its
float16 dot is not exact); the float32 weights are then not rounded at all.

Programs are ordered in groups of GROUP_M tile rows so that neighbours share weight tiles in L2.
split_k_iters only describes how vLLM splits its K loop: the result does not depend on it.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _awq_gemm_kernel(a_ptr, qw_ptr, s_ptr, z_ptr, c_ptr, M, N, K, G, NW,
                     sa_m, sa_k, sc_m, sc_n,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     GROUP_M: tl.constexpr, UPCAST: tl.constexpr):
    pid = tl.program_id(0)
    n_m = tl.cdiv(M, BM)
    n_n = tl.cdiv(N, BN)
    per_group = GROUP_M * n_n
    first_m = (pid // per_group) * GROUP_M
    size_m = tl.minimum(n_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % size_m
    pid_n = (pid % per_group) // size_m

    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    m_ok = rm < M
    n_ok = rn < N
    word_col = rn // 8
    j = rn % 8
    shift = (((j % 2) * 4 + j // 2) * 4).to(tl.int32)  # nibble [0,4,1,5,2,6,3,7][j]

    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        k_ok = kk < K
        at = tl.load(a_ptr + rm[:, None] * sa_m + kk[None, :] * sa_k,
                     mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        words = tl.load(qw_ptr + kk[:, None].to(tl.int64) * NW + word_col[None, :],
                        mask=k_ok[:, None] & n_ok[None, :], other=0)
        q = (words >> shift[None, :]) & 0xF
        g = k0 // G
        zw = tl.load(z_ptr + g.to(tl.int64) * NW + word_col, mask=n_ok, other=0)
        z = (zw >> shift) & 0xF
        s = tl.load(s_ptr + g.to(tl.int64) * N + rn, mask=n_ok, other=0.0).to(tl.float32)
        w = (q - z[None, :]).to(tl.float32) * s[None, :]
        if UPCAST:
            acc += tl.dot(at.to(tl.float32), w, input_precision="ieee")
        else:
            acc += tl.dot(at, w.to(tl.float16))
    tl.store(c_ptr + rm[:, None] * sc_m + rn[None, :] * sc_n, acc.to(c_ptr.dtype.element_ty),
             mask=m_ok[:, None] & n_ok[None, :])


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _block_k(G: int, cap: int) -> int:
    for bk in (128, 64, 32, 16):
        if bk <= cap and G % bk == 0:
            return bk
    raise ValueError(f"awq_gemm: group size {G} is not a multiple of 16")


def awq_gemm(_in_feats, _kernel, _scaling_factors, _zeros, split_k_iters):
    if _in_feats.dim() != 2 or _kernel.dim() != 2:
        raise ValueError("awq_gemm: _in_feats and _kernel must be 2-d")
    M, K = _in_feats.shape
    if _kernel.shape[0] != K or _kernel.dtype != torch.int32:
        raise ValueError("awq_gemm: _kernel must be int32 [K, N / 8]")
    N = _kernel.shape[1] * 8
    groups = _scaling_factors.shape[0]
    if groups == 0 or K % groups != 0:
        raise ValueError("awq_gemm: K must be a multiple of the number of groups")
    G = K // groups
    if tuple(_scaling_factors.shape) != (groups, N) or tuple(_zeros.shape) != (groups, N // 8):
        raise ValueError("awq_gemm: scales must be [K / G, N] and zeros [K / G, N / 8]")
    out = torch.empty((M, N), dtype=_in_feats.dtype, device=_in_feats.device)
    if M == 0 or N == 0:
        return out
    qw = _kernel if _kernel.is_contiguous() else _kernel.contiguous()
    sc = _scaling_factors if _scaling_factors.is_contiguous() else _scaling_factors.contiguous()
    zr = _zeros if _zeros.is_contiguous() else _zeros.contiguous()
    gpu = _in_feats.device.type != "cpu"
    if gpu:
        if M <= 16:
            bm, bn, bk, warps, stages = 16, 64, _block_k(G, 128), 4, 4
        elif M <= 64:
            bm, bn, bk, warps, stages = 64, 64, _block_k(G, 64), 4, 4
        else:
            bm, bn, bk, warps, stages = 128, 128, _block_k(G, 64), 8, 3
    else:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bm, bn = min(max(_pow2(M), 16), 256), min(max(_pow2(N), 16), 256)
        bk, warps, stages = _block_k(G, 128), 4, 1
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _awq_gemm_kernel[grid](_in_feats, qw, sc, zr, out, M, N, K, G, N // 8,
                           _in_feats.stride(0), _in_feats.stride(1), out.stride(0), out.stride(1),
                           BM=bm, BN=bn, BK=bk, GROUP_M=8, UPCAST=not gpu,
                           num_warps=warps, num_stages=stages)
    return out
