"""Shipped solution for vLLM's cutlass_scaled_mm_azp (int8 path): one Triton kernel.

A program owns a [BM, BN] tile of `out`. It walks K in BK steps, loading a [BM, BK] tile of
`a` (contiguous along K) and a [BK, BN] tile of `b` (column-major, so also contiguous along K),
and accumulates their product exactly in int32 with tl.dot (int8 tensor cores on the GPU). The
epilogue runs once per tile: the zero-point correction is subtracted in int32 (azp_adj[n], or
azp[m] * azp_adj[n]), then in float32, in vLLM's order, the result times the column scales,
then times the row scales plus the bias, rounded once to the output dtype and stored.
Programs are ordered in groups of GROUP_M tile rows so that neighbouring programs share tiles
of `b` in L2. Offsets are 64-bit (M * K can pass 2**31).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _scaled_mm_azp_kernel(a_ptr, b_ptr, out_ptr, as_ptr, bs_ptr, adj_ptr, azp_ptr, bias_ptr,
                          M, N, K, sa_m, sa_k, sb_k, sb_n, so_m, so_n,
                          PER_TOKEN: tl.constexpr, PER_CHANNEL: tl.constexpr,
                          HAS_AZP: tl.constexpr, HAS_BIAS: tl.constexpr, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    n_m = tl.cdiv(M, BM)
    n_n = tl.cdiv(N, BN)
    per_group = GROUP_M * n_n
    group = pid // per_group
    first_m = group * GROUP_M
    size_m = tl.minimum(n_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % size_m
    pid_n = (pid % per_group) // size_m

    rm = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    rn = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    m_ok = rm < M
    n_ok = rn < N
    a_p = a_ptr + rm[:, None] * sa_m + rk[None, :] * sa_k
    b_p = b_ptr + rk[:, None] * sb_k + rn[None, :] * sb_n
    acc = tl.zeros([BM, BN], dtype=tl.int32)
    for k0 in range(0, K, BK):
        k_ok = (k0 + rk) < K
        at = tl.load(a_p, mask=m_ok[:, None] & k_ok[None, :], other=0)
        bt = tl.load(b_p, mask=k_ok[:, None] & n_ok[None, :], other=0)
        acc = tl.dot(at, bt, acc, out_dtype=tl.int32)
        a_p += BK * sa_k
        b_p += BK * sb_k

    adj = tl.load(adj_ptr + rn, mask=n_ok, other=0)
    if HAS_AZP:
        zp = tl.load(azp_ptr + rm, mask=m_ok, other=0)
        acc -= zp[:, None] * adj[None, :]
    else:
        acc -= adj[None, :]
    if PER_CHANNEL:
        sb = tl.load(bs_ptr + rn, mask=n_ok, other=0.0)
    else:
        sb = tl.load(bs_ptr + tl.zeros([BN], dtype=tl.int64))
    if PER_TOKEN:
        sa = tl.load(as_ptr + rm, mask=m_ok, other=0.0)
    else:
        sa = tl.load(as_ptr + tl.zeros([BM], dtype=tl.int64))
    t = acc.to(tl.float32) * sb[None, :]
    r = sa[:, None] * t
    if HAS_BIAS:
        r += tl.load(bias_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    o_p = out_ptr + rm[:, None] * so_m + rn[None, :] * so_n
    tl.store(o_p, r.to(out_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(M, N, K, gpu):
    """(BM, BN, BK, num_warps, num_stages)."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        # Each of the [BM, BK], [BK, BN] and [BM, BN] blocks stays within 2**18 elements.
        bm = min(_pow2(M), 256)
        bn = min(_pow2(N), 1024)
        return bm, bn, min(_pow2(K), 256), 4, 1
    if M <= 16:
        # Decoding: the weight read dominates; narrow tiles spread it over every SM.
        return 16, 64, 256, 4, 4
    if M <= 64:
        return 64, 128, 128, 4, 4
    return 128, 256, 128, 8, 3


def cutlass_scaled_mm_azp(out, a, b, a_scales, b_scales, azp_adj, azp=None,
                          bias=None) -> None:
    if a.dim() != 2 or b.dim() != 2 or out.dim() != 2:
        raise RuntimeError("cutlass_scaled_mm_azp(): a, b and out must be 2-d")
    M, K = a.shape
    if b.shape[0] != K or tuple(out.shape) != (M, b.shape[1]):
        raise RuntimeError(f"cutlass_scaled_mm_azp(): shapes a {list(a.shape)}, "
                           f"b {list(b.shape)}, out {list(out.shape)} do not match")
    N = b.shape[1]
    if a.dtype != torch.int8 or b.dtype != torch.int8:
        raise RuntimeError("cutlass_scaled_mm_azp(): only the int8 path is implemented")
    if a_scales.numel() not in (1, M) or b_scales.numel() not in (1, N):
        raise RuntimeError("cutlass_scaled_mm_azp(): a_scales must have 1 or M elements and "
                           "b_scales 1 or N")
    if azp_adj.numel() != N or azp_adj.dtype != torch.int32:
        raise RuntimeError("cutlass_scaled_mm_azp(): azp_adj must be int32 with N elements")
    if azp is not None and (azp.numel() != M or azp.dtype != torch.int32):
        raise RuntimeError("cutlass_scaled_mm_azp(): azp must be None or int32 with M elements")
    if bias is not None and (bias.numel() != N or bias.dtype != out.dtype):
        raise RuntimeError("cutlass_scaled_mm_azp(): bias must be [N] of the output dtype")
    if out.numel() == 0:
        return None
    a_s = a_scales.reshape(-1)
    b_s = b_scales.reshape(-1)
    bm, bn, bk, warps, stages = _tiles(M, N, K, out.device.type != "cpu")
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    adj = azp_adj.reshape(-1)
    zp = azp.reshape(-1) if azp is not None else adj
    _scaled_mm_azp_kernel[grid](a, b, out, a_s, b_s, adj, zp,
                                bias if bias is not None else out, M, N, K,
                                a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                out.stride(0), out.stride(1),
                                PER_TOKEN=a_s.numel() == M and M > 1,
                                PER_CHANNEL=b_s.numel() == N and N > 1,
                                HAS_AZP=azp is not None, HAS_BIAS=bias is not None,
                                BM=bm, BN=bn, BK=bk, GROUP_M=8,
                                num_warps=warps, num_stages=stages)
    return None
