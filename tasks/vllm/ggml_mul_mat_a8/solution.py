"""Shipped solution for vLLM's ggml_mul_mat_a8: two Triton kernels.

1. `_quantize_q8_1`: each 32-value block of each row of X becomes int8 quants, fp16(d) and
   fp16(s) (kept as float32 values), with vLLM's float32 arithmetic: correctly rounded divisions
   (`tl.math.div_rn`) and rounding half away from zero.
2. `_mmq`: a program owns a [BM tokens, BN weight rows] tile of Y. For each 32-value block along
   K it decodes the weight quants of its BN rows into a [32, BN] int8 tile, multiplies it with
   the [BM, 32] activation quants on the tensor cores (`tl.dot`, exact int32), and scales the
   integer block products in float32 as vLLM's MMQ vec_dot functions do (Q4_K's min term
   through the fp16 block sum of x). The result is converted to X's dtype.
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
def _mmq(w_ptr, q_ptr, d_ptr, s_ptr, y_ptr, M, ROWS, K,
         TYPE: tl.constexpr, QK: tl.constexpr, BS: tl.constexpr,
         BM: tl.constexpr, BN: tl.constexpr):
    mi = tl.program_id(1).to(tl.int64) * BM + tl.arange(0, BM)
    r = tl.program_id(0).to(tl.int64) * BN + tl.arange(0, BN)
    m_ok = mi < M
    r_ok = r < ROWS
    i = tl.arange(0, 32)
    NJ = K // 32
    nbk = K // QK
    acc = tl.zeros([BM, BN], tl.float32)
    mx = m_ok[:, None] & (i < 32)[None, :]  # [BM, 32]
    mw = (i < 32)[:, None] & r_ok[None, :]  # [32, BN]
    for j in range(0, NJ):
        qx = tl.load(q_ptr + (mi * NJ + j)[:, None] * 32 + i[None, :], mask=mx, other=0)
        d8 = tl.load(d_ptr + mi * NJ + j, mask=m_ok, other=0.0)
        s8 = tl.load(s_ptr + mi * NJ + j, mask=m_ok, other=0.0)
        if TYPE == 8:
            base = w_ptr + (r * nbk + j) * BS  # [BN]
            dw = _f16_at(base, r_ok)
            qw = tl.load(base[None, :] + 2 + i[:, None], mask=mw, other=0)
            qw = qw.to(tl.int8, bitcast=True)
            sumi = tl.dot(qx, qw)  # [BM, BN] int32
            acc += (d8[:, None] * dw[None, :]) * sumi.to(tl.float32)
        elif TYPE == 2:
            base = w_ptr + (r * nbk + j) * BS
            dw = _f16_at(base, r_ok)
            byte = tl.load(base[None, :] + 2 + (i % 16)[:, None], mask=mw, other=0)
            nib = tl.where((i < 16)[:, None], byte & 15, byte >> 4).to(tl.int8)
            sumi = tl.dot(qx, nib)
            acc += dw[None, :] * (sumi.to(tl.float32) * d8[:, None] - 8.0 * s8[:, None])
        else:
            sub = j % 8
            base = w_ptr + (r * nbk + j // 8) * BS  # [BN]
            dall = _f16_at(base, r_ok)
            dmin = _f16_at(base + 2, r_ok)
            sb = base + 4
            if sub < 4:
                sc = tl.load(sb + sub, mask=r_ok, other=0).to(tl.int32) & 63
                mn = tl.load(sb + sub + 4, mask=r_ok, other=0).to(tl.int32) & 63
            else:
                a = tl.load(sb + sub, mask=r_ok, other=0).to(tl.int32)
                a4 = tl.load(sb + sub + 4, mask=r_ok, other=0).to(tl.int32)
                am4 = tl.load(sb + sub - 4, mask=r_ok, other=0).to(tl.int32)
                sc = (a4 & 15) | ((am4 >> 6) << 4)
                mn = (a4 >> 4) | ((a >> 6) << 4)
            byte = tl.load(base[None, :] + 16 + 32 * (sub // 2) + i[:, None], mask=mw, other=0)
            if sub % 2 == 0:
                nib = (byte & 15).to(tl.int8)
            else:
                nib = (byte >> 4).to(tl.int8)
            sumi = tl.dot(qx, nib)
            part_d = d8[:, None] * (sumi * sc[None, :]).to(tl.float32)
            part_m = s8[:, None] * mn[None, :].to(tl.float32)
            acc += dall[None, :] * part_d - dmin[None, :] * part_m
    if y_ptr.dtype.element_ty == tl.bfloat16:
        # Round to bfloat16 (nearest even) in integers, so that the conversion below is exact
        # whatever rounding the platform's float32 -> bfloat16 conversion uses.
        bits = acc.to(tl.uint32, bitcast=True)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        acc = bits.to(tl.float32, bitcast=True)
    out = y_ptr + mi[:, None] * ROWS + r[None, :]
    tl.store(out, acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & r_ok[None, :])


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


def ggml_mul_mat_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    if type not in _BLOCK:
        raise ValueError(f"ggml_mul_mat_a8: GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    if X.dim() != 2 or X.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise ValueError("ggml_mul_mat_a8: X must be a 2-d float16/bfloat16/float32 tensor")
    M, K = X.shape
    if K % qk != 0:
        raise ValueError(f"ggml_mul_mat_a8: K = {K} is not a multiple of {qk}")
    if W.dtype != torch.uint8 or not W.is_contiguous() or W.numel() < row * (K // qk) * bs:
        raise ValueError("ggml_mul_mat_a8: W must be contiguous uint8 holding row * K / QK "
                         "blocks")
    if K == 0:
        return torch.zeros((M, row), dtype=X.dtype, device=X.device)
    Y = torch.empty((M, row), dtype=X.dtype, device=X.device)
    if M == 0 or row == 0:
        return Y
    x = X if X.is_contiguous() else X.contiguous()
    q, d8, s8 = _quantize(x)
    if X.device.type == "cpu":
        bm = max(16, min(_pow2(M), 128))
        bn = max(16, min(_pow2(row), 128))
    else:
        bm = max(16, min(_pow2(M), 64))
        bn = 64
    _mmq[(triton.cdiv(row, bn), triton.cdiv(M, bm))](W, q, d8, s8, Y, M, row, K, TYPE=type,
                                                      QK=qk, BS=bs, BM=bm, BN=bn, num_warps=4)
    return Y
