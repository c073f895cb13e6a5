"""Shipped solution for vLLM's convert_fp8: one elementwise Triton kernel per direction over the
flat (contiguous) caches.

Quantize: float32(src) / scale (correctly rounded, `tl.math.div_rn`), clamp to +-448, and
round to float8_e4m3fn by integer arithmetic on the float32 bits (nearest, ties to even); the
byte is stored into the uint8 cache. Dequantize: the byte is decoded by integer arithmetic
(sign, 4-bit exponent with bias 7, 3-bit mantissa, subnormals, NaN codes 0x7F/0xFF), multiplied
by the scale in float32 and rounded to the destination dtype (bfloat16 by bit arithmetic: the
CPU interpreter's float32 -> bfloat16 conversion truncates). Neither direction depends on
Triton's float8 conversions, so the kernel gives the same bytes on the GPU and the interpreter.
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
    """float8_e4m3fn bits (uint8) -> float32 value."""
    b = q.to(tl.uint32)
    e = (b >> 3) & 15
    m = b & 7
    nrm = (((b & 0x80) << 24) | ((e + 120) << 23) | (m << 20)).to(tl.float32, bitcast=True)
    sub = m.to(tl.float32) * 0.001953125  # m * 2^-9, then the sign bit (keeps -0: `-x` is 0 - x)
    sub = (sub.to(tl.uint32, bitcast=True) | ((b & 0x80) << 24)).to(tl.float32, bitcast=True)
    v = tl.where(e == 0, sub, nrm)
    return tl.where((b & 0x7F) == 0x7F, float("nan"), v)


@triton.jit
def _round_bf16(v):
    b = v.to(tl.uint32, bitcast=True)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    # NaN as it is: the GPU's NaN constant is 0x7FFFFFFF, which the carry turns into -0.0
    # (seen on the H200).
    return tl.where(v != v, v, b.to(tl.float32, bitcast=True))


@triton.jit
def _quant_kernel(src_ptr, dst_ptr, scale, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    q = _e4m3(tl.math.div_rn(x, tl.full([BLOCK], scale, tl.float32)))
    tl.store(dst_ptr + offs, q, mask=mask)


@triton.jit
def _dequant_kernel(src_ptr, dst_ptr, scale, n, IS_BF16: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    q = tl.load(src_ptr + offs, mask=mask, other=0)
    v = _e4m3_value(q) * scale
    if IS_BF16:
        v = _round_bf16(v)
    tl.store(dst_ptr + offs, v.to(dst_ptr.dtype.element_ty), mask=mask)


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def convert_fp8(dst_cache: torch.Tensor, src_cache: torch.Tensor, scale: float,
                kv_cache_dtype: str) -> None:
    name = "convert_fp8"
    if kv_cache_dtype not in ("fp8", "fp8_e4m3"):
        raise ValueError(f"{name}: unsupported kv_cache_dtype {kv_cache_dtype!r}")
    if not (src_cache.is_contiguous() and dst_cache.is_contiguous()):
        raise ValueError(f"{name}: both caches must be contiguous")
    n = src_cache.numel()
    if dst_cache.numel() != n:
        raise ValueError(f"{name}: the caches must have as many elements")
    if n == 0:
        return None
    block = 65536 if src_cache.device.type == "cpu" else 2048
    grid = (triton.cdiv(n, block),)
    if src_cache.dtype in _FLOATS and dst_cache.dtype == torch.uint8:
        _quant_kernel[grid](src_cache, dst_cache, float(scale), n, BLOCK=block, num_warps=4)
    elif src_cache.dtype == torch.uint8 and dst_cache.dtype in _FLOATS:
        _dequant_kernel[grid](src_cache, dst_cache, float(scale), n,
                              IS_BF16=dst_cache.dtype == torch.bfloat16, BLOCK=block,
                              num_warps=4)
    else:
        raise ValueError(f"{name}: unsupported dtypes {src_cache.dtype} -> {dst_cache.dtype}")
    return None
