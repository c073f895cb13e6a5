"""Shipped solution for vLLM's gptq_gemm: one Triton kernel that dequantizes the GPTQ weight tile
by tile and multiplies it with tl.dot.

A program owns a [BM, BN] tile of the output and walks K in BK steps. For each step it
- loads the activation tile [BM, BK], gathering the columns through q_perm when the ExLlama
  layout comes with an act-order permutation;
- unpacks the weight values q [BK, BN]: each row's word row and bit position follow from the
  row index (plain or ExLlama order; for 3 bits the three words of the row's 32-value group are
  loaded and the right bits picked);
- finds each row's group (k // group size, or g_idx[k] in the plain layout), gathers the zero
  points (packed along n) and scales, and forms (q - zero) * s in float32;
- multiplies with tl.dot, float32 accumulation; on the GPU the weight tile is rounded to
  float16 for the tensor cores (as vLLM does), on the CPU interpreter the product is taken in
  float32 (its float16 dot is not exact).
When the rows of a step share one group (ExLlama layout, BK dividing the group size) the zero
points and scales are loaded once per step as [BN] vectors.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _zeros_of(z_ptr, grp, n, ZW, mask, BITS: tl.constexpr, PER: tl.constexpr):
    # Zero points z[grp, n], packed along n in the plain order (PER values a word for bit 2, 4,
    # 8); grp and n broadcast together.
    if BITS == 3:
        bitpos = 3 * (n % 32)
        word = grp * ZW + 3 * (n // 32) + bitpos // 32
        sh = (bitpos % 32).to(tl.uint32)
        lo = tl.load(z_ptr + word, mask=mask, other=0).to(tl.uint32, bitcast=True)
        two = sh > 29
        hi = tl.load(z_ptr + word + 1, mask=mask & two, other=0).to(tl.uint32, bitcast=True)
        hs = tl.where(two, 32 - sh, 0)
        return (((lo >> sh) | tl.where(two, hi << hs, 0)) & 7).to(tl.int32)
    else:
        word = grp * ZW + n // PER
        sh = ((n % PER) * BITS).to(tl.uint32)
        v = tl.load(z_ptr + word, mask=mask, other=0).to(tl.uint32, bitcast=True)
        return ((v >> sh) & ((1 << BITS) - 1)).to(tl.int32)


@triton.jit
def _gptq_gemm_kernel(a_ptr, qw_ptr, z_ptr, s_ptr, idx_ptr, c_ptr, M, N, K, GS, ZW,
                      sa_m, sa_k, sc_m, sc_n,
                      BITS: tl.constexpr, PER: tl.constexpr, EXL: tl.constexpr,
                      PERM: tl.constexpr,
                      GIDX: tl.constexpr, ROWGRP: tl.constexpr, ZOFF: tl.constexpr,
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

    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = (k0 + rk).to(tl.int64)
        k_ok = kk < K
        kn_ok = k_ok[:, None] & n_ok[None, :]
        # Activations (columns through q_perm for act-order ExLlama weights).
        if PERM:
            col = tl.load(idx_ptr + kk, mask=k_ok, other=0).to(tl.int64)
        else:
            col = kk
        at = tl.load(a_ptr + rm[:, None] * sa_m + col[None, :] * sa_k,
                     mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        # Quantized values q [BK, BN].
        if BITS == 3:
            j = kk % 32
            base = (3 * (kk // 32))[:, None] * N + rn[None, :]
            w0 = tl.load(qw_ptr + base, mask=kn_ok, other=0).to(tl.uint32, bitcast=True)
            w1 = tl.load(qw_ptr + base + N, mask=kn_ok, other=0).to(tl.uint32, bitcast=True)
            w2 = tl.load(qw_ptr + base + 2 * N, mask=kn_ok, other=0).to(tl.uint32, bitcast=True)
            if EXL:
                wi = (j // 10)[:, None]
                t = j % 10
                pos = (3 * (t // 2) + 16 * (t % 2)).to(tl.uint32)[:, None]
                sel = tl.where(wi == 0, w0, tl.where(wi == 1, w1, w2))
                low = (sel >> pos) & 7
                b = tl.where(j == 31, 31, 15).to(tl.uint32)[:, None]
                top = ((w0 >> b) & 1) | (((w1 >> b) & 1) << 1) | (((w2 >> b) & 1) << 2)
                q = tl.where((j < 30)[:, None], low, top)
            else:
                bitpos = 3 * j
                wi = (bitpos // 32)[:, None]
                sh = (bitpos % 32).to(tl.uint32)[:, None]
                lo = tl.where(wi == 0, w0, tl.where(wi == 1, w1, w2))
                hi = tl.where(wi == 0, w1, w2)
                two = sh > 29
                hs = tl.where(two, 32 - sh, 0)
                q = ((lo >> sh) | tl.where(two, hi << hs, 0)) & 7
            q = q.to(tl.int32)
        else:
            j = kk % PER
            if EXL and BITS != 8:
                sh = ((j // 2 + (j % 2) * (PER // 2)) * BITS).to(tl.uint32)
            else:
                sh = (j * BITS).to(tl.uint32)
            words = tl.load(qw_ptr + (kk // PER)[:, None] * N + rn[None, :], mask=kn_ok,
                            other=0).to(tl.uint32, bitcast=True)
            q = ((words >> sh[:, None]) & ((1 << BITS) - 1)).to(tl.int32)
        # Zero points and scales of each row's group.
        if ROWGRP:
            if GIDX:
                grp = tl.load(idx_ptr + kk, mask=k_ok, other=0).to(tl.int64)
            else:
                grp = kk // GS
            z = _zeros_of(z_ptr, grp[:, None], rn[None, :], ZW, kn_ok, BITS, PER)
            s = tl.load(s_ptr + grp[:, None] * N + rn[None, :], mask=kn_ok, other=0.0)
            w = (q - (z + ZOFF)).to(tl.float32) * s.to(tl.float32)
        else:
            g = (k0 // GS).to(tl.int64)
            z = _zeros_of(z_ptr, g, rn, ZW, n_ok, BITS, PER)
            s = tl.load(s_ptr + g * N + rn, mask=n_ok, other=0.0)
            w = (q - (z + ZOFF)[None, :]).to(tl.float32) * s.to(tl.float32)[None, :]
        w = tl.where(kn_ok, w, 0.0)
        if UPCAST:
            acc += tl.dot(at.to(tl.float32), w, input_precision="ieee")
        else:
            acc += tl.dot(at, w.to(tl.float16))
    tl.store(c_ptr + rm[:, None] * sc_m + rn[None, :] * sc_n, acc.to(c_ptr.dtype.element_ty),
             mask=m_ok[:, None] & n_ok[None, :])


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, b_g_idx, use_exllama,
              use_v2_format, bit):
    if bit not in (2, 3, 4, 8):
        raise ValueError(f"gptq_gemm: bit {bit} is not 2, 3, 4 or 8")
    if a.dim() != 2 or b_q_weight.dim() != 2:
        raise ValueError("gptq_gemm: a and b_q_weight must be 2-d")
    M, K = a.shape
    N = b_q_weight.shape[1]
    if b_q_weight.shape[0] * 32 != K * bit:
        raise ValueError(f"gptq_gemm: b_q_weight must have K * bit / 32 = {K * bit // 32} rows")
    groups = b_gptq_qzeros.shape[0]
    if groups == 0 or K % groups != 0:
        raise ValueError("gptq_gemm: K must be a multiple of the number of groups")
    GS = K // groups
    ZW = b_gptq_qzeros.shape[1]
    if ZW * 32 != N * bit or tuple(b_gptq_scales.shape) != (groups, N):
        raise ValueError("gptq_gemm: qzeros must be [groups, N * bit / 32], scales [groups, N]")
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return out
    has_idx = b_g_idx.numel() > 0
    if has_idx and b_g_idx.numel() != K:
        raise ValueError(f"gptq_gemm: b_g_idx must be empty or have K = {K} elements")
    if not use_exllama and not has_idx:
        raise ValueError("gptq_gemm: the plain layout (use_exllama false) needs g_idx")
    perm = bool(use_exllama) and has_idx
    gidx = not use_exllama
    idx = b_g_idx.reshape(-1) if has_idx else b_q_weight
    if has_idx and idx.stride(0) != 1:
        idx = idx.contiguous()
    qw = b_q_weight if b_q_weight.is_contiguous() else b_q_weight.contiguous()
    zr = b_gptq_qzeros if b_gptq_qzeros.is_contiguous() else b_gptq_qzeros.contiguous()
    sc = b_gptq_scales if b_gptq_scales.is_contiguous() else b_gptq_scales.contiguous()
    gpu = a.device.type != "cpu"
    if gpu:
        if M <= 16:
            bm, bn, bk_cap, warps, stages = 16, 64, 128, 4, 4
        elif M <= 64:
            bm, bn, bk_cap, warps, stages = 64, 64, 64, 4, 4
        else:
            bm, bn, bk_cap, warps, stages = 128, 128, 64, 8, 3
        if bit == 3:
            # 3-bit words straddle tiles: the pipeline's buffers needed 317 KB of shared memory
            # at 4 stages on the H200 (limit 227 KB); two stages fit.
            stages = min(stages, 2)
    else:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bm, bn = min(max(_pow2(M), 16), 256), min(max(_pow2(N), 16), 256)
        bk_cap, warps, stages = 128, 4, 1
    # One group per K step when the group size allows it (ExLlama layout); otherwise a group
    # per row.
    bk = bk_cap
    rowgrp = gidx
    if not gidx and groups > 1:
        bk = next((b for b in (128, 64, 32, 16) if b <= bk_cap and GS % b == 0), 0)
        if bk == 0:
            bk, rowgrp = bk_cap, True
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _gptq_gemm_kernel[grid](a, qw, zr, sc, idx, out, M, N, K, GS, ZW,
                            a.stride(0), a.stride(1), out.stride(0), out.stride(1),
                            BITS=bit, PER=32 // bit if bit != 3 else 1,
                            EXL=bool(use_exllama), PERM=perm, GIDX=gidx,
                            ROWGRP=rowgrp, ZOFF=0 if use_v2_format else 1,
                            BM=bm, BN=bn, BK=bk, GROUP_M=8, UPCAST=not gpu,
                            num_warps=warps, num_stages=stages)
    return out
