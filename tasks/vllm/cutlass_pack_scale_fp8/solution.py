"""Shipped solution for vLLM's cutlass_pack_scale_fp8: one elementwise Triton kernel over the
8 * numel outputs. Each output reads its scale byte, decodes it to float32 by integer
arithmetic, multiplies by -(8 - j) (exact in float32) and rounds back to float8_e4m3fn by
integer arithmetic on the float32 bits (nearest, ties to even, saturating to +-448); the byte
is stored through a uint8 view of the result. No Triton float8 conversion is used, so the
kernel gives the same bytes on the GPU and the CPU interpreter.
"""

import torch
import triton
import triton.language as tl

_FP8_MAX = tl.constexpr(448.0)
_RNE = tl.constexpr(12582912.0)  # 1.5 * 2^23


@triton.jit
def _e4m3(v):
    """float32 v -> float8_e4m3fn bits (uint8): clamp to +-448, round to nearest even."""
    v = tl.minimum(tl.maximum(v, -_FP8_MAX), _FP8_MAX)
    b = v.to(tl.uint32, bitcast=True)
    sign = (b >> 24) & 0x80
    ab = b & 0x7FFFFFFF
    nrm = ((ab + 0x7FFFF + ((ab >> 20) & 1)) >> 20) - 960  # bias 127 -> 7
    a = tl.abs(v)
    sub = ((a * 512.0 + _RNE) - _RNE).to(tl.uint32)  # multiples of 2^-9
    code = tl.where(a < 0.015625, sub, nrm)
    return (code | sign).to(tl.uint8)


@triton.jit
def _e4m3_value(q):
    """float8_e4m3fn bits (uint8) -> float32 value (NaN codes 0x7F/0xFF give NaN)."""
    b = q.to(tl.uint32)
    e = (b >> 3) & 15
    m = b & 7
    nrm = (((b & 0x80) << 24) | ((e + 120) << 23) | (m << 20)).to(tl.float32, bitcast=True)
    sub = m.to(tl.float32) * 0.001953125  # m * 2^-9, then the sign bit (keeps -0: `-x` is 0 - x)
    sub = (sub.to(tl.uint32, bitcast=True) | ((b & 0x80) << 24)).to(tl.float32, bitcast=True)
    v = tl.where(e == 0, sub, nrm)
    return tl.where((b & 0x7F) == 0x7F, float("nan"), v)


@triton.jit
def _pack_kernel(s_ptr, o_ptr, n_out, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    q = tl.load(s_ptr + offs // 8, mask=mask, other=0)
    k = (8 - offs % 8).to(tl.float32)
    tl.store(o_ptr + offs, _e4m3(_e4m3_value(q) * -k), mask=mask)


def cutlass_pack_scale_fp8(scales: torch.Tensor) -> torch.Tensor:
    if scales.dtype != torch.float8_e4m3fn:
        raise ValueError("cutlass_pack_scale_fp8: scales must be float8_e4m3fn")
    s = scales if scales.is_contiguous() else scales.contiguous()
    out = torch.empty(s.numel() * 8, dtype=torch.float8_e4m3fn, device=s.device)
    n = out.numel()
    if n == 0:
        return out
    block = 65536 if s.device.type == "cpu" else 2048
    _pack_kernel[(triton.cdiv(n, block),)](s.view(torch.uint8), out.view(torch.uint8), n,
                                           BLOCK=block, num_warps=4)
    return out
