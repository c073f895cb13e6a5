"""Shipped solution for vLLM's ggml_moe_a8: two Triton kernels.

1. `_quantize_q8_1`: each 32-value block of each row of X becomes int8 quants, fp16(d) and
   fp16(s) (kept as float32 values), with vLLM's float32 arithmetic: correctly rounded divisions
   (`tl.math.div_rn`) and rounding half away from zero.
2. `_moe_mmq`: a program owns one routing block (4 consecutive entries of sorted_token_ids, one
   expert) and BN weight rows of that expert. The entries' activation rows (t // top_k) are
   gathered as a [16, 32] tile per q8_1 block (rows 4..15 masked: `tl.dot` needs 16), multiplied
   with the expert's decoded [32, BN] weight quants (`tl.dot`, exact int32) and scaled in
   float32 as vLLM's MMQ vec_dot functions do; padding entries and invalid blocks write nothing.
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
def _moe_mmq(w_ptr, q_ptr, d_ptr, s_ptr, y_ptr, ids_ptr, eid_ptr, ntpp_ptr,
             ROWS, K, EXP_STRIDE, TOP_K, NPAIRS,
             TYPE: tl.constexpr, QK: tl.constexpr, BS: tl.constexpr,
             G: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    blk = tl.program_id(1).to(tl.int64)
    r = tl.program_id(0).to(tl.int64) * BN + tl.arange(0, BN)
    r_ok = r < ROWS
    e = tl.load(eid_ptr + blk).to(tl.int64)
    ntpp = tl.load(ntpp_ptr).to(tl.int64)
    blk_ok = (e >= 0) & (e <= 255) & (blk * G <= ntpp)
    ei = tl.where(blk_ok, e, 0)
    slot = tl.arange(0, BM)
    t = tl.load(ids_ptr + blk * G + slot, mask=slot < G, other=0).to(tl.int64)
    t_ok = (slot < G) & (t >= 0) & (t < NPAIRS) & blk_ok
    xr = tl.where(t_ok, t // TOP_K, 0)  # activation row of each entry
    i = tl.arange(0, 32)
    NJ = K // 32
    nbk = K // QK
    wb = w_ptr + ei * EXP_STRIDE
    acc = tl.zeros([BM, BN], tl.float32)
    mx = t_ok[:, None] & (i < 32)[None, :]
    mw = (i < 32)[:, None] & r_ok[None, :]
    for j in range(0, NJ):
        qx = tl.load(q_ptr + (xr * NJ + j)[:, None] * 32 + i[None, :], mask=mx, other=0)
        d8 = tl.load(d_ptr + xr * NJ + j, mask=t_ok, other=0.0)
        s8 = tl.load(s_ptr + xr * NJ + j, mask=t_ok, other=0.0)
        if TYPE == 8:
            base = wb + (r * nbk + j) * BS
            dw = _f16_at(base, r_ok)
            qw = tl.load(base[None, :] + 2 + i[:, None], mask=mw, other=0)
            sumi = tl.dot(qx, qw.to(tl.int8, bitcast=True))
            acc += (d8[:, None] * dw[None, :]) * sumi.to(tl.float32)
        elif TYPE == 2:
            base = wb + (r * nbk + j) * BS
            dw = _f16_at(base, r_ok)
            byte = tl.load(base[None, :] + 2 + (i % 16)[:, None], mask=mw, other=0)
            nib = tl.where((i < 16)[:, None], byte & 15, byte >> 4).to(tl.int8)
            sumi = tl.dot(qx, nib)
            acc += dw[None, :] * (sumi.to(tl.float32) * d8[:, None] - 8.0 * s8[:, None])
        else:
            sub = j % 8
            base = wb + (r * nbk + j // 8) * BS
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
    out = y_ptr + tl.where(t_ok, t, 0)[:, None] * ROWS + r[None, :]
    tl.store(out, acc.to(y_ptr.dtype.element_ty), mask=t_ok[:, None] & r_ok[None, :])


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


_G = 4  # MOE_X_* on CUDA: entries of sorted_token_ids per expert block


def ggml_moe_a8(X: torch.Tensor, W: torch.Tensor, sorted_token_ids: torch.Tensor,
                expert_ids: torch.Tensor, num_tokens_post_padded: torch.Tensor, type: int,
                row: int, top_k: int, tokens: int) -> torch.Tensor:
    if type not in _BLOCK:
        raise ValueError(f"ggml_moe_a8: GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    if X.dim() != 2 or X.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise ValueError("ggml_moe_a8: X must be a 2-d float16/bfloat16/float32 tensor")
    T, K = X.shape
    if K % qk != 0:
        raise ValueError(f"ggml_moe_a8: K = {K} is not a multiple of {qk}")
    if W.dtype != torch.uint8 or not W.is_contiguous() or W.dim() < 2:
        raise ValueError("ggml_moe_a8: W must be a contiguous uint8 [E, row, bytes] tensor")
    for name, t in (("sorted_token_ids", sorted_token_ids), ("expert_ids", expert_ids),
                    ("num_tokens_post_padded", num_tokens_post_padded)):
        if t.dtype != torch.int32 or not t.is_contiguous():
            raise ValueError(f"ggml_moe_a8: {name} must be a contiguous int32 tensor")
    n_pairs = tokens * top_k
    Y = torch.empty((n_pairs, row), dtype=X.dtype, device=X.device)
    nblk = sorted_token_ids.numel() // _G
    if n_pairs == 0 or row == 0 or nblk == 0 or K == 0:
        return Y
    x = X if X.is_contiguous() else X.contiguous()
    q, d8, s8 = _quantize(x)
    bn = 128 if X.device.type == "cpu" else 64
    bn = max(16, min(_pow2(row), bn))
    _moe_mmq[(triton.cdiv(row, bn), nblk)](
        W, q, d8, s8, Y, sorted_token_ids, expert_ids, num_tokens_post_padded,
        row, K, W.stride(0), top_k, n_pairs, TYPE=type, QK=qk, BS=bs, G=_G, BM=16, BN=bn,
        num_warps=4)
    return Y
