"""Shipped solution for vLLM's ggml_mul_mat_vec_a8: two Triton kernels.

1. `_quantize_q8_1`: each 32-value block of each row of X becomes int8 quants, fp16(d) and
   fp16(s) (kept as float32 values), with vLLM's float32 arithmetic: correctly rounded divisions
   (`tl.math.div_rn`) and rounding half away from zero.
2. `_mmvq`: a program owns BR weight rows for one activation row; it walks K in chunks of NB
   q8_1 blocks, decodes the weight quants of the chunk into a [BR, NB, 32] integer tile, forms
   the exact integer dot products with the activation quants, scales them per block in float32
   as vLLM's vec_dot functions do, and accumulates. The result is converted to X's dtype.
"""

import torch
import triton
import triton.language as tl

_BLOCK = {2: (32, 18), 8: (32, 34), 12: (256, 144)}


@triton.jit
def _f16_at(p, mask):
    """float16 stored little-endian at byte pointers p, p + 1, as float32."""
    lo = tl.load(p, mask=mask, other=0).to(tl.uint16)
    hi = tl.load(p + 1, mask=mask, other=0).to(tl.uint16)
    return (lo | (hi << 8)).to(tl.float16, bitcast=True).to(tl.float32)


@triton.jit
def _quantize_q8_1(x_ptr, q_ptr, d_ptr, s_ptr, NBT, BB: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BB + tl.arange(0, BB)
    i = tl.arange(0, 32)
    b_ok = b < NBT
    m = b_ok[:, None] & (i < 32)[None, :]
    x = tl.load(x_ptr + b[:, None] * 32 + i[None, :], mask=m, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=1)
    d = tl.math.div_rn(amax, tl.full([BB], 127.0, tl.float32))
    safe = tl.where(amax == 0.0, 1.0, d)
    t = tl.math.div_rn(x, tl.broadcast_to(safe[:, None], [BB, 32]))
    a = tl.abs(t)
    r = tl.floor(a)
    r = tl.where(a - r >= 0.5, r + 1.0, r)  # half away from zero
    q = tl.where(t < 0, -r, r)
    q = tl.where((amax == 0.0)[:, None], 0.0, q)
    s = tl.sum(x, axis=1)
    tl.store(q_ptr + b[:, None] * 32 + i[None, :], q.to(tl.int8), mask=m)
    tl.store(d_ptr + b, d.to(tl.float16).to(tl.float32), mask=b_ok)
    tl.store(s_ptr + b, s.to(tl.float16).to(tl.float32), mask=b_ok)


@triton.jit
def _mmvq(w_ptr, q_ptr, d_ptr, s_ptr, y_ptr, ROWS, K,
          TYPE: tl.constexpr, QK: tl.constexpr, BS: tl.constexpr,
          BR: tl.constexpr, NB: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    v = tl.program_id(1).to(tl.int64)
    r_ok = r < ROWS
    i = tl.arange(0, 32)
    NJ = K // 32  # q8_1 blocks per row
    nbk = K // QK  # weight blocks per row
    acc = tl.zeros([BR], tl.float32)
    for j0 in range(0, NJ, NB):
        j = j0 + tl.arange(0, NB)
        j_ok = j < NJ
        mj = r_ok[:, None] & j_ok[None, :]  # [BR, NB]
        m3 = mj[:, :, None] & (i < 32)[None, None, :]
        qx = tl.load(q_ptr + (v * NJ + j)[:, None] * 32 + i[None, :],
                     mask=j_ok[:, None], other=0).to(tl.int32)  # [NB, 32]
        d8 = tl.load(d_ptr + v * NJ + j, mask=j_ok, other=0.0)
        s8 = tl.load(s_ptr + v * NJ + j, mask=j_ok, other=0.0)
        if TYPE == 8:
            base = w_ptr + (r[:, None] * nbk + j[None, :]) * BS  # [BR, NB]
            dw = _f16_at(base, mj)
            qw = tl.load(base[:, :, None] + 2 + i[None, None, :], mask=m3, other=0)
            qw = qw.to(tl.int8, bitcast=True).to(tl.int32)
            sumi = tl.sum(qw * qx[None, :, :], axis=2)
            t = dw * d8[None, :] * sumi.to(tl.float32)
        elif TYPE == 2:
            base = w_ptr + (r[:, None] * nbk + j[None, :]) * BS
            dw = _f16_at(base, mj)
            byte = tl.load(base[:, :, None] + 2 + (i % 16)[None, None, :], mask=m3,
                           other=0).to(tl.int32)
            nib = tl.where((i < 16)[None, None, :], byte & 15, byte >> 4)
            sumi = tl.sum(nib * qx[None, :, :], axis=2)
            t = dw * (sumi.to(tl.float32) * d8[None, :] - 8.0 * s8[None, :])
        else:
            sub = j % 8  # sub-block within the super-block
            base = w_ptr + (r[:, None] * nbk + (j // 8)[None, :]) * BS  # [BR, NB]
            dall = _f16_at(base, mj)
            dmin = _f16_at(base + 2, mj)
            sb = base + 4
            s2 = sub[None, :]
            a = tl.load(sb + s2, mask=mj, other=0).to(tl.int32)
            a4 = tl.load(sb + s2 + 4, mask=mj, other=0).to(tl.int32)
            am4 = tl.load(sb + tl.where(s2 >= 4, s2 - 4, s2), mask=mj, other=0).to(tl.int32)
            low = s2 < 4
            sc = tl.where(low, a & 63, (a4 & 15) | ((am4 >> 6) << 4))
            mn = tl.where(low, a4 & 63, (a4 >> 4) | ((a >> 6) << 4))
            qoff = 16 + 32 * (sub // 2)
            byte = tl.load(base[:, :, None] + qoff[None, :, None] + i[None, None, :], mask=m3,
                           other=0).to(tl.int32)
            nib = tl.where(((sub % 2) == 0)[None, :, None], byte & 15, byte >> 4)
            sumi = tl.sum(nib * qx[None, :, :], axis=2)
            sumq = tl.sum(qx, axis=1)  # [NB]
            part_d = d8[None, :] * (sumi * sc).to(tl.float32)
            part_m = d8[None, :] * (sumq[None, :] * mn).to(tl.float32)
            t = dall * part_d - dmin * part_m
        acc += tl.sum(tl.where(mj, t, 0.0), axis=1)
    if y_ptr.dtype.element_ty == tl.bfloat16:
        # Round to bfloat16 (nearest even) in integers, so that the conversion below is exact
        # whatever rounding the platform's float32 -> bfloat16 conversion uses.
        bits = acc.to(tl.uint32, bitcast=True)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        acc = bits.to(tl.float32, bitcast=True)
    tl.store(y_ptr + v * ROWS + r, acc.to(y_ptr.dtype.element_ty), mask=r_ok)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _quantize(X: torch.Tensor):
    V, K = X.shape
    nbt = V * (K // 32)
    q = torch.empty((V, K), dtype=torch.int8, device=X.device)
    d8 = torch.empty((V, K // 32), dtype=torch.float32, device=X.device)
    s8 = torch.empty((V, K // 32), dtype=torch.float32, device=X.device)
    bb = min(_pow2(nbt), 2048 if X.device.type == "cpu" else 64)
    _quantize_q8_1[(triton.cdiv(nbt, bb),)](X, q, d8, s8, nbt, BB=bb, num_warps=4,
                                            enable_fp_fusion=False)
    return q, d8, s8


def ggml_mul_mat_vec_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    if type not in _BLOCK:
        raise ValueError(f"ggml_mul_mat_vec_a8: GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    if X.dim() != 2 or X.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise ValueError("ggml_mul_mat_vec_a8: X must be a 2-d float16/bfloat16/float32 tensor")
    V, K = X.shape
    if K % qk != 0:
        raise ValueError(f"ggml_mul_mat_vec_a8: K = {K} is not a multiple of {qk}")
    if W.dtype != torch.uint8 or not W.is_contiguous() or W.numel() < row * (K // qk) * bs:
        raise ValueError("ggml_mul_mat_vec_a8: W must be contiguous uint8 holding row * K / QK "
                         "blocks")
    if K == 0:
        return torch.zeros((V, row), dtype=X.dtype, device=X.device)
    Y = torch.empty((V, row), dtype=X.dtype, device=X.device)
    if V == 0 or row == 0:
        return Y
    x = X if X.is_contiguous() else X.contiguous()
    q, d8, s8 = _quantize(x)
    nj = K // 32
    if X.device.type == "cpu":
        br = min(_pow2(row), 256)
        nb = min(_pow2(nj), max(1, 8192 // br))
    else:
        br = 16
        nb = min(_pow2(nj), 8)
    _mmvq[(triton.cdiv(row, br), V)](W, q, d8, s8, Y, row, K, TYPE=type, QK=qk, BS=bs,
                                     BR=br, NB=nb, num_warps=4)
    return Y
