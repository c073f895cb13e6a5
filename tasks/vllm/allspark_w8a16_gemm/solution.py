"""Shipped solution for vLLM's allspark_w8a16_gemm: one Triton GEMM kernel that reads the
N32K16-ordered uint8 weight directly, dequantizes each tile in registers, and multiplies.

A program owns a BM x BN tile of C. For its BN columns it computes once where each column's
bytes start (row G * 8 + r % 8 of the [N32 / 4, 4K] byte matrix, plus 4 * (r // 8)) and where
its scale and zero point sit (G * 32 + (r % 8) * 4 + r // 8). Along K, in steps of BK, each k
adds kg * 64 + ((j % 8) // 2) * 16 + 2 * (j // 8) + j % 2 (kg = k // 16, j = k % 16), so the
weight tile is one gathered load. Dequantization follows vLLM's arithmetic in the activation
dtype T: d = q - 128, then T(d - zero) with zero points, then T(d * scale) (the float32 product
is exact, so one rounding). tl.dot accumulates in float32; C is rounded once to T. On the CPU
interpreter the dot operands are converted to float32 first (exact: the interpreter's dot
mishandles bfloat16 operands), and roundings to bfloat16 are done on the float32 bits (its
conversion truncates).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _round_to(x, T: tl.constexpr):
    """x (float32) rounded to T, to nearest even. For bfloat16 the rounding is done on the
    float32 bits, then converted exactly: the CPU interpreter's float32 -> bfloat16 conversion
    truncates (the GPU's rounds; both then agree). No NaN or inf reaches it."""
    if T == tl.bfloat16:
        bits = x.to(tl.uint32, bitcast=True)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.to(tl.float32, bitcast=True).to(T)
    else:
        return x.to(T)


@triton.jit
def _allspark_w8a16_kernel(a_ptr, q_ptr, s_ptr, z_ptr, c_ptr, M, N, K, stride_am, stride_ak,
                           stride_cm, stride_cn, HAS_ZP: tl.constexpr, UPCAST: tl.constexpr,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    T = c_ptr.dtype.element_ty
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    m_ok = rm < M
    n_ok = rn < N
    g = rn // 32
    r = rn % 32
    col_start = (g * 8 + r % 8).to(tl.int64) * (4 * K) + (r // 8) * 4
    spos = g * 32 + (r % 8) * 4 + r // 8
    scale = tl.load(s_ptr + spos, mask=n_ok, other=0.0).to(tl.float32)
    if HAS_ZP:
        zero = tl.load(z_ptr + spos, mask=n_ok, other=0.0).to(tl.float32)
    a_rows = a_ptr + rm.to(tl.int64) * stride_am
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        k_ok = rk < K
        kg = rk // 16
        j = rk % 16
        k_off = kg * 64 + ((j % 8) // 2) * 16 + 2 * (j // 8) + j % 2
        a = tl.load(a_rows[:, None] + rk[None, :] * stride_ak,
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        q = tl.load(q_ptr + col_start[None, :] + k_off[:, None],
                    mask=k_ok[:, None] & n_ok[None, :], other=128)
        d = q.to(tl.float32) - 128.0
        if HAS_ZP:
            d = _round_to(d - zero[None, :], T).to(tl.float32)
        w = _round_to(d * scale[None, :], T)
        if UPCAST:
            acc += tl.dot(a.to(tl.float32), w.to(tl.float32), input_precision="ieee")
        else:
            acc += tl.dot(a, w)
    c = c_ptr + rm.to(tl.int64)[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, _round_to(acc, T), mask=m_ok[:, None] & n_ok[None, :])


def _pow2(x: int) -> int:
    return triton.next_power_of_2(max(int(x), 1))


def _tiles(M: int, N: int, K: int, gpu: bool) -> tuple[int, int, int, int, int]:
    """(BM, BN, BK, num_warps, num_stages)."""
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        return (min(max(16, _pow2(M)), 256), min(max(32, _pow2(N)), 256),
                min(max(16, _pow2(K)), 512), 4, 1)
    if M <= 16:
        return 16, 64, 128, 4, 4
    if M <= 32:
        return 32, 64, 64, 4, 4
    if M <= 64:
        return 64, 64, 64, 4, 3
    return 128, 128, 64, 8, 3


def allspark_w8a16_gemm(a: torch.Tensor, b_qweight: torch.Tensor, b_scales: torch.Tensor,
                        b_qzeros, n: int, group_size: int, sm_count: int, sm_version: int,
                        CUBLAS_M_THRESHOLD: int, has_zp: bool,
                        n32k16_reorder: bool) -> torch.Tensor:
    if a.dim() != 2 or a.dtype not in (torch.float16, torch.bfloat16):
        raise RuntimeError("allspark_w8a16_gemm: a must be a 2-d float16/bfloat16 tensor")
    if group_size != -1:
        raise RuntimeError("allspark_w8a16_gemm: only group_size = -1 is supported")
    M, K = a.shape
    N = int(n)
    n32 = (N + 31) // 32 * 32
    if b_qweight.dtype != torch.uint8 or tuple(b_qweight.shape) != (n32, K):
        raise RuntimeError(f"allspark_w8a16_gemm: b_qweight must be uint8 [{n32}, {K}], got "
                           f"{b_qweight.dtype} {list(b_qweight.shape)}")
    if not b_qweight.is_contiguous() or not b_scales.is_contiguous():
        raise RuntimeError("allspark_w8a16_gemm: b_qweight and b_scales must be contiguous")
    if b_scales.numel() != n32 or b_scales.dtype != a.dtype:
        raise RuntimeError("allspark_w8a16_gemm: b_scales must hold N32 values of a's dtype")
    zp = b_qzeros is not None
    if zp and (b_qzeros.numel() != n32 or not b_qzeros.is_contiguous()):
        raise RuntimeError("allspark_w8a16_gemm: b_qzeros must be contiguous with N32 values")
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    gpu = a.device.type != "cpu"
    BM, BN, BK, warps, stages = _tiles(M, N, K, gpu)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    _allspark_w8a16_kernel[grid](
        a, b_qweight, b_scales, b_qzeros if zp else b_scales, c, M, N, K,
        a.stride(0), a.stride(1), c.stride(0), c.stride(1),
        HAS_ZP=zp, UPCAST=not gpu, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    return c
