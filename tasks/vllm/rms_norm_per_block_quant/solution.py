"""Shipped solution for vLLM's rms_norm_per_block_quant (int8 output): one Triton kernel, one
read of `input` (and `residual`) and one write of `result` (and `residual`).

A program owns BR whole rows (up to 16384 elements, kept in registers). The normalised tile
[BR, BN] is viewed as [BR, BN / GS, GS] to take each group's absolute maximum, and the group
scales are broadcast back over their GS elements for the quantization.

The int8 result is compared exactly, so the arithmetic is the one the task defines, operation by
operation in float32: divisions and the square root are correctly rounded (`tl.math.div_rn`,
`tl.math.sqrt_rn`), the kernel is launched with enable_fp_fusion=False so that no product is
fused into a following addition, and values are rounded to the input dtype by explicit
round-to-nearest-even (bfloat16 by integer bit arithmetic: the CPU interpreter's float32 ->
bfloat16 conversion truncates). The int8 rounding is the 1.5 * 2^23 trick.
"""

import torch
import triton
import triton.language as tl

_MAX_ROW = 16384  # longest row kept in registers
_RNE = tl.constexpr(12582912.0)  # 1.5 * 2^23
_CLAMP = tl.constexpr(4194303.0)  # below 2^22, where the trick is exact; far outside int8
_FLT_EPS = tl.constexpr(1.1920928955078125e-07)


@triton.jit
def _to_dtype(v, KIND: tl.constexpr):
    """float32 v rounded to the input dtype (0 float32, 1 float16, 2 bfloat16), as float32."""
    if KIND == 1:
        v = v.to(tl.float16).to(tl.float32)
    elif KIND == 2:
        b = v.to(tl.uint32, bitcast=True)
        b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
        v = b.to(tl.float32, bitcast=True)
    return v


@triton.jit
def _rms_block_quant_kernel(q_ptr, x_ptr, w_ptr, s_ptr, r_ptr, eps, R, N, G, xs, ss_t, ss_g,
                            HAS_RES: tl.constexpr, KIND: tl.constexpr, GS: tl.constexpr,
                            BR: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    cols = tl.arange(0, BN).to(tl.int64)
    c_ok = cols < N
    mask = r_ok[:, None] & c_ok[None, :]
    o_off = (rows * N)[:, None] + cols[None, :]  # result and residual are contiguous
    x = tl.load(x_ptr + (rows * xs)[:, None] + cols[None, :], mask=mask, other=0.0)
    x = x.to(tl.float32)
    if HAS_RES:
        x += tl.load(r_ptr + o_off, mask=mask, other=0.0).to(tl.float32)
        tl.store(r_ptr + o_off, _to_dtype(x, KIND).to(r_ptr.dtype.element_ty), mask=mask)
    ss = tl.sum(x * x, axis=1)
    var = tl.math.div_rn(ss, tl.full([BR], N, tl.float32)) + eps
    rms = tl.math.div_rn(tl.full([BR], 1.0, tl.float32), tl.math.sqrt_rn(var))
    w = tl.load(w_ptr + cols, mask=c_ok, other=0.0).to(tl.float32)
    y = _to_dtype(_to_dtype(x * rms[:, None], KIND) * w[None, :], KIND)
    y = tl.where(mask, y, 0.0)
    # Group maxima and scales: [BR, BN // GS].
    y3 = tl.reshape(y, [BR, BN // GS, GS])
    amax = tl.max(tl.abs(y3), axis=2)
    s = tl.maximum(tl.math.div_rn(amax, tl.full([BR, BN // GS], 127.0, tl.float32)), _FLT_EPS)
    inv = tl.math.div_rn(tl.full([BR, BN // GS], 1.0, tl.float32), s)
    g = tl.arange(0, BN // GS).to(tl.int64)
    s_mask = r_ok[:, None] & (g < G)[None, :]
    tl.store(s_ptr + (rows * ss_t)[:, None] + (g * ss_g)[None, :], s, mask=s_mask)
    v = tl.reshape(y3 * inv[:, :, None], [BR, BN])
    v = tl.minimum(tl.maximum(v, -_CLAMP), _CLAMP)
    r = (v + _RNE) - _RNE
    q = tl.minimum(tl.maximum(r, -128.0), 127.0).to(tl.int8)
    tl.store(q_ptr + o_off, q, mask=mask)


_KINDS = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}


def rms_norm_per_block_quant(result: torch.Tensor, input: torch.Tensor, weight: torch.Tensor,
                             scale: torch.Tensor, epsilon: float,
                             scale_ub: torch.Tensor | None, residual: torch.Tensor | None,
                             group_size: int, is_scale_transposed: bool) -> None:
    name = "rms_norm_per_block_quant"
    if result.dtype != torch.int8:
        raise NotImplementedError(f"{name}: only an int8 result is supported")
    if scale_ub is not None:
        raise ValueError(f"{name}: scale_ub is only accepted with an fp8 result")
    if input.dtype not in _KINDS or weight.dtype != input.dtype:
        raise ValueError(f"{name}: input and weight must share a float dtype")
    if group_size not in (64, 128):
        raise ValueError(f"{name}: group_size must be 64 or 128")
    N = input.shape[-1]
    R = input.numel() // N if N else 0
    G = N // group_size
    if G * group_size != N or N > _MAX_ROW:
        raise ValueError(f"{name}: hidden_size must be a multiple of group_size, at most "
                         f"{_MAX_ROW}")
    if result.shape != input.shape or not result.is_contiguous():
        raise ValueError(f"{name}: result must be a contiguous int8 tensor of the input's shape")
    if (scale.dim() != 2 or scale.shape[0] != R or scale.shape[1] != G
            or scale.dtype != torch.float32):
        raise ValueError(f"{name}: scale must be float32 [{R}, {G}]")
    if residual is not None and (residual.shape != input.shape or residual.dtype != input.dtype
                                 or not residual.is_contiguous()):
        raise ValueError(f"{name}: residual must be contiguous, of the input's shape and dtype")
    if R == 0:
        return None
    x = input
    try:
        xs = x.view(-1, N).stride(0) if x.stride(-1) == 1 or N == 1 else None
    except RuntimeError:
        xs = None
    if xs is None:
        x = x.contiguous()
        xs = N
    w = weight if weight.stride(0) == 1 else weight.contiguous()
    bn = triton.next_power_of_2(N)
    gpu = x.device.type != "cpu"
    br = min(triton.next_power_of_2(R), max(1, (4096 if gpu else 65536) // bn))
    warps = min(16, max(4, br * bn // 512)) if gpu else 4
    _rms_block_quant_kernel[(triton.cdiv(R, br),)](
        result, x, w, scale, x if residual is None else residual, float(epsilon), R, N, G, xs,
        scale.stride(0), scale.stride(1), HAS_RES=residual is not None, KIND=_KINDS[x.dtype],
        GS=group_size, BR=br, BN=bn, num_warps=warps, enable_fp_fusion=False)
    return None
