"""Shipped solution for vLLM's ggml_dequantize: one Triton kernel, specialised per GGML type.

A program owns a tile of [BB blocks, QK values] of the flat output (QK = 32 for Q4_0/Q8_0, 256
for Q4_K). Each block's fp16 scale(s) are assembled from their two bytes (little-endian) and
bitcast to float16; the quants are gathered from the block's bytes (a row of the tile reads one
contiguous run of the block). The arithmetic follows vLLM's half-precision kernels: every
product and difference is formed exactly in float32 (all operands are float16 values or small
integers) and rounded to float16 where vLLM rounds it, and the float16 result is converted to
the output dtype.
"""

import torch
import triton
import triton.language as tl

_BLOCK = {2: (32, 18), 8: (32, 34), 12: (256, 144)}


@triton.jit
def _f16_at(p):
    """float16 stored little-endian at byte pointers p (p and p + 1), as float32."""
    lo = tl.load(p).to(tl.uint16)
    hi = tl.load(p + 1).to(tl.uint16)
    return (lo | (hi << 8)).to(tl.float16, bitcast=True).to(tl.float32)


@triton.jit
def _dequant_kernel(w_ptr, y_ptr, NB, TYPE: tl.constexpr, QK: tl.constexpr,
                    BS: tl.constexpr, BB: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BB + tl.arange(0, BB)
    b_ok = b < NB
    j = tl.arange(0, QK)
    m = b_ok[:, None] & (j < QK)[None, :]
    blk = w_ptr + b * BS  # [BB] block starts
    if TYPE == 8:
        d = _f16_at(tl.where(b_ok, blk, w_ptr))
        q = tl.load(blk[:, None] + 2 + j[None, :], mask=m, other=0)
        q = q.to(tl.int8, bitcast=True).to(tl.float32)
        y = (q * d[:, None]).to(tl.float16)
    elif TYPE == 2:
        d = _f16_at(tl.where(b_ok, blk, w_ptr))
        byte = tl.load(blk[:, None] + 2 + (j % 16)[None, :], mask=m, other=0).to(tl.int32)
        nib = tl.where((j < 16)[None, :], byte & 15, byte >> 4).to(tl.float32)
        y = ((nib - 8.0) * d[:, None]).to(tl.float16)
    else:
        safe = tl.where(b_ok, blk, w_ptr)
        d = _f16_at(safe)
        dmin = _f16_at(safe + 2)
        g = j // 64
        r = j % 64
        h = r // 32
        s = 2 * g + h  # sub-block, 0..7
        sb = blk[:, None] + 4  # scales bytes
        a = tl.load(sb + s[None, :], mask=m, other=0).to(tl.int32)
        a4 = tl.load(sb + (s + 4)[None, :], mask=m, other=0).to(tl.int32)
        am4 = tl.load(sb + tl.where(s >= 4, s - 4, s)[None, :], mask=m, other=0).to(tl.int32)
        lowj = (s < 4)[None, :]
        sc = tl.where(lowj, a & 63, (a4 & 15) | ((am4 >> 6) << 4))
        mn = tl.where(lowj, a4 & 63, (a4 >> 4) | ((a >> 6) << 4))
        byte = tl.load(blk[:, None] + 16 + (32 * g + r % 32)[None, :], mask=m,
                       other=0).to(tl.int32)
        nib = tl.where((h == 0)[None, :], byte & 15, byte >> 4).to(tl.float32)
        d1 = (d[:, None] * sc.to(tl.float32)).to(tl.float16).to(tl.float32)
        m1 = (dmin[:, None] * mn.to(tl.float32)).to(tl.float16).to(tl.float32)
        p = (d1 * nib).to(tl.float16).to(tl.float32)
        y = (p - m1).to(tl.float16)
    out = y_ptr + b[:, None] * QK + j[None, :]
    v = y.to(tl.float32)
    if y_ptr.dtype.element_ty == tl.bfloat16:
        # Round to bfloat16 (nearest even) in integers, so that the conversion below is exact
        # whatever rounding the platform's float32 -> bfloat16 conversion uses.
        bits = v.to(tl.uint32, bitcast=True)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        v = bits.to(tl.float32, bitcast=True)
    tl.store(out, v.to(y_ptr.dtype.element_ty), mask=m)


def ggml_dequantize(W: torch.Tensor, type: int, m: int, n: int,
                    dtype: torch.dtype | None) -> torch.Tensor:
    if type not in _BLOCK:
        raise ValueError(f"ggml_dequantize: GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    total = m * n
    if total % qk != 0:
        raise ValueError(f"ggml_dequantize: m * n = {total} is not a multiple of {qk}")
    out_dtype = torch.float16 if dtype is None else dtype
    if out_dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise ValueError(f"ggml_dequantize: dtype {dtype} is not float16, bfloat16 or float32")
    nb = total // qk
    if W.dtype != torch.uint8 or not W.is_contiguous() or W.numel() < nb * bs:
        raise ValueError(f"ggml_dequantize: W must be contiguous uint8 with at least {nb * bs} "
                         "bytes")
    y = torch.empty((m, n), dtype=out_dtype, device=W.device)
    if nb == 0:
        return y
    if W.device.type == "cpu":
        bb = min(triton.next_power_of_2(nb), max(1, 65536 // qk))
    else:
        bb = max(1, 2048 // qk)
    _dequant_kernel[(triton.cdiv(nb, bb),)](W, y, nb, TYPE=type, QK=qk, BS=bs, BB=bb,
                                            num_warps=4)
    return y
