"""Shipped solution for vLLM's rms_norm_dynamic_per_token_quant (int8 output): one Triton
kernel, one read of `input` (and `residual`) and one write of `result` (and `residual`).

A program owns [BR rows, BN] tiles. A row of up to 16384 elements is loaded once and kept in
registers (short rows are packed many to a program); longer rows take three passes over column
chunks (sum of squares, absolute maximum, then quantization and the residual write).

The int8 result is compared exactly, so the arithmetic is the one the task defines, operation by
operation in float32: divisions and the square root are correctly rounded (`tl.math.div_rn`,
`tl.math.sqrt_rn`; `/` and `rsqrt` are approximations on NVIDIA GPUs), the kernel is launched
with enable_fp_fusion=False so that no product is fused into a following addition, and values
are rounded to the input dtype by explicit round-to-nearest-even (bfloat16 by integer bit
arithmetic: the CPU interpreter's float32 -> bfloat16 conversion truncates). The int8 rounding
is the 1.5 * 2^23 trick: adding and subtracting it rounds a float32 of magnitude below 2^22 to
an integer, ties to even.
"""

import torch
import triton
import triton.language as tl

_MAX_ONE_TILE = 16384  # longest row kept in registers; longer rows take three passes
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
def _norm(x, rms, w, KIND: tl.constexpr):
    return _to_dtype(_to_dtype(x * rms[:, None], KIND) * w[None, :], KIND)


@triton.jit
def _quant(y, inv):
    v = y * inv[:, None]
    v = tl.minimum(tl.maximum(v, -_CLAMP), _CLAMP)
    r = (v + _RNE) - _RNE
    return tl.minimum(tl.maximum(r, -128.0), 127.0).to(tl.int8)


@triton.jit
def _rms_quant_kernel(q_ptr, x_ptr, w_ptr, s_ptr, r_ptr, eps, R, N, xs,
                      HAS_RES: tl.constexpr, KIND: tl.constexpr, BR: tl.constexpr,
                      BN: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    cols = tl.arange(0, BN).to(tl.int64)
    x_row = x_ptr + (rows * xs)[:, None]
    o_row = (rows * N)[:, None]  # result and residual are contiguous
    res_ty = r_ptr.dtype.element_ty
    if ONE_TILE:
        c_ok = cols < N
        mask = r_ok[:, None] & c_ok[None, :]
        x = tl.load(x_row + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        if HAS_RES:
            x += tl.load(r_ptr + o_row + cols[None, :], mask=mask, other=0.0).to(tl.float32)
            tl.store(r_ptr + o_row + cols[None, :], _to_dtype(x, KIND).to(res_ty), mask=mask)
        ss = tl.sum(x * x, axis=1)
    else:
        acc = tl.zeros([BR, BN], tl.float32)
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            x = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            if HAS_RES:
                x += tl.load(r_ptr + o_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            acc += x * x
        ss = tl.sum(acc, axis=1)
    var = tl.math.div_rn(ss, tl.full([BR], N, tl.float32)) + eps
    rms = tl.math.div_rn(tl.full([BR], 1.0, tl.float32), tl.math.sqrt_rn(var))
    if ONE_TILE:
        w = tl.load(w_ptr + cols, mask=c_ok, other=0.0).to(tl.float32)
        y = _norm(x, rms, w, KIND)
        amax = tl.max(tl.where(mask, tl.abs(y), 0.0), axis=1)
    else:
        amax_acc = tl.zeros([BR, BN], tl.float32)
        for start in range(0, N, BN):
            c = start + cols
            c_ok = c < N
            mask = r_ok[:, None] & c_ok[None, :]
            x = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            if HAS_RES:
                x += tl.load(r_ptr + o_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + c, mask=c_ok, other=0.0).to(tl.float32)
            amax_acc = tl.maximum(amax_acc, tl.where(mask, tl.abs(_norm(x, rms, w, KIND)), 0.0))
        amax = tl.max(amax_acc, axis=1)
    s = tl.maximum(tl.math.div_rn(amax, tl.full([BR], 127.0, tl.float32)), _FLT_EPS)
    inv = tl.math.div_rn(tl.full([BR], 1.0, tl.float32), s)
    tl.store(s_ptr + rows, s, mask=r_ok)
    if ONE_TILE:
        tl.store(q_ptr + o_row + cols[None, :], _quant(y, inv), mask=mask)
    else:
        for start in range(0, N, BN):
            c = start + cols
            c_ok = c < N
            mask = r_ok[:, None] & c_ok[None, :]
            x = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            if HAS_RES:
                x += tl.load(r_ptr + o_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
                tl.store(r_ptr + o_row + c[None, :], _to_dtype(x, KIND).to(res_ty), mask=mask)
            w = tl.load(w_ptr + c, mask=c_ok, other=0.0).to(tl.float32)
            tl.store(q_ptr + o_row + c[None, :], _quant(_norm(x, rms, w, KIND), inv), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(R, N, gpu):
    """(BR, BN, ONE_TILE, num_warps)."""
    if N > _MAX_ONE_TILE:
        return 1, 4096, False, 16
    bn = _pow2(N)
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        return min(_pow2(R), max(1, 65536 // bn)), bn, True, 4
    br = min(_pow2(R), max(1, 4096 // bn))
    return br, bn, True, min(16, max(4, br * bn // 512))


_KINDS = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}


def rms_norm_dynamic_per_token_quant(result: torch.Tensor, input: torch.Tensor,
                                     weight: torch.Tensor, scale: torch.Tensor, epsilon: float,
                                     scale_ub: torch.Tensor | None,
                                     residual: torch.Tensor | None) -> None:
    name = "rms_norm_dynamic_per_token_quant"
    if result.dtype != torch.int8:
        raise NotImplementedError(f"{name}: only an int8 result is supported")
    if scale_ub is not None:
        raise ValueError(f"{name}: scale_ub is only accepted with an fp8 result")
    if input.dtype not in _KINDS or weight.dtype != input.dtype:
        raise ValueError(f"{name}: input and weight must share a float dtype")
    N = input.shape[-1]
    R = input.numel() // N if N else 0
    if result.shape != input.shape or not result.is_contiguous():
        raise ValueError(f"{name}: result must be a contiguous int8 tensor of the input's shape")
    if scale.numel() != R or scale.dtype != torch.float32 or not scale.is_contiguous():
        raise ValueError(f"{name}: scale must be contiguous float32 with {R} elements")
    if residual is not None and (residual.shape != input.shape or residual.dtype != input.dtype
                                 or not residual.is_contiguous()):
        raise ValueError(f"{name}: residual must be contiguous, of the input's shape and dtype")
    if R == 0:
        return None
    x = input
    # Rows are addressed as x_ptr + row * stride: one row stride over the flattened tokens and
    # a unit stride along hidden_size (vLLM's own requirement); anything else is copied.
    try:
        xs = x.view(-1, N).stride(0) if x.stride(-1) == 1 or N == 1 else None
    except RuntimeError:
        xs = None
    if xs is None:
        x = x.contiguous()
        xs = N
    w = weight if weight.stride(0) == 1 else weight.contiguous()
    br, bn, one_tile, warps = _tiles(R, N, x.device.type != "cpu")
    _rms_quant_kernel[(triton.cdiv(R, br),)](
        result, x, w, scale, x if residual is None else residual, float(epsilon), R, N, xs,
        HAS_RES=residual is not None, KIND=_KINDS[x.dtype], BR=br, BN=bn, ONE_TILE=one_tile,
        num_warps=warps, enable_fp_fusion=False)
    return None
