"""Shipped solution for vLLM's fp8 activation quantization (static, dynamic per-tensor and
dynamic per-token float8_e4m3fn): Triton kernels, one read of `input` per pass and one write
of `result`.

The float32 -> float8_e4m3fn rounding is done with integer arithmetic on the float32 bits
(round to nearest, ties to even, after the saturating clamp to +-448), and the byte stored
through a uint8 view of `result`. On the GPU `.to(tl.float8e4nv)` would do the same in one
instruction; the bit arithmetic costs a few integer operations of a memory-bound kernel and
gives the same bytes on the CPU interpreter, whose float8 conversion rounds wrongly.

Rows (tokens) are addressed with a row stride and a unit element stride, as vLLM's kernels
do; anything else is made contiguous first. Divisions are correctly rounded
(`tl.math.div_rn`), as vLLM's CUDA divisions are.
"""

import torch
import triton
import triton.language as tl

_FP8_MAX = tl.constexpr(448.0)
_MIN_SCALE = tl.constexpr(4.359654017899896e-06)  # float32(1 / (448 * 512))
_RNE = tl.constexpr(12582912.0)  # 1.5 * 2^23: (v + _RNE) - _RNE rounds |v| < 2^22 to an integer
_MAX_ONE_TILE = 16384


@triton.jit
def _e4m3(v):
    """float32 v -> float8_e4m3fn bits (uint8): clamp to +-448, round to nearest even."""
    v = tl.minimum(tl.maximum(v, -_FP8_MAX), _FP8_MAX)
    b = v.to(tl.uint32, bitcast=True)
    sign = (b >> 24) & 0x80
    ab = b & 0x7FFFFFFF
    # Normal range (|v| >= 2^-6): keep 3 of the 23 mantissa bits, ties to even; the carry of a
    # rounded-up mantissa moves into the exponent. Exponent bias 127 -> 7: subtract 120 << 3.
    nrm = ((ab + 0x7FFFF + ((ab >> 20) & 1)) >> 20) - 960
    # Subnormals: multiples of 2^-9 (0..8, where 8 is the smallest normal, code 8).
    a = tl.abs(v)
    sub = ((a * 512.0 + _RNE) - _RNE).to(tl.uint32)
    code = tl.where(a < 0.015625, sub, nrm)
    return (code | sign).to(tl.uint8)


@triton.jit
def _static_kernel(x_ptr, q_ptr, s_ptr, R, N, xs, qs, BR: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    cols = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    mask = (rows < R)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + (rows * xs)[:, None] + cols[None, :], mask=mask, other=0.0)
    s = tl.load(s_ptr).to(tl.float32)
    inv = tl.math.div_rn(tl.full([], 1.0, tl.float32), s)
    q = _e4m3(x.to(tl.float32) * inv)
    tl.store(q_ptr + (rows * qs)[:, None] + cols[None, :], q, mask=mask)


@triton.jit
def _rowmax_kernel(x_ptr, m_ptr, R, N, xs, BR: tl.constexpr, BN: tl.constexpr):
    """m[r] = max |x[r, :]| for BR rows per program."""
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    cols = tl.arange(0, BN).to(tl.int64)
    acc = tl.zeros([BR, BN], tl.float32)
    for start in range(0, N, BN):
        c = start + cols
        mask = r_ok[:, None] & (c < N)[None, :]
        x = tl.load(x_ptr + (rows * xs)[:, None] + c[None, :], mask=mask, other=0.0)
        acc = tl.maximum(acc, tl.abs(x.to(tl.float32)))
    tl.store(m_ptr + rows, tl.max(acc, axis=1), mask=r_ok)


@triton.jit
def _tensor_scale_kernel(m_ptr, s_ptr, R, BLOCK: tl.constexpr):
    """One program: scale = max(m) / 448."""
    acc = tl.zeros([BLOCK], tl.float32)
    offs = tl.arange(0, BLOCK)
    for start in range(0, R, BLOCK):
        acc = tl.maximum(acc, tl.load(m_ptr + start + offs, mask=start + offs < R, other=0.0))
    amax = tl.max(acc, axis=0)
    tl.store(s_ptr, tl.math.div_rn(amax, tl.full([], 448.0, tl.float32)))


@triton.jit
def _per_token_kernel(x_ptr, q_ptr, s_ptr, ub_ptr, R, N, xs, qs, HAS_UB: tl.constexpr,
                      BR: tl.constexpr, BN: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    cols = tl.arange(0, BN).to(tl.int64)
    x_row = x_ptr + (rows * xs)[:, None]
    q_row = q_ptr + (rows * qs)[:, None]
    if ONE_TILE:
        mask = r_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        amax = tl.max(tl.abs(x), axis=1)
    else:
        acc = tl.zeros([BR, BN], tl.float32)
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            xc = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            acc = tl.maximum(acc, tl.abs(xc))
        amax = tl.max(acc, axis=1)
    if HAS_UB:
        amax = tl.minimum(amax, tl.load(ub_ptr).to(tl.float32))
    s = tl.maximum(tl.math.div_rn(amax, tl.full([BR], 448.0, tl.float32)), _MIN_SCALE)
    tl.store(s_ptr + rows, s, mask=r_ok)
    if ONE_TILE:
        tl.store(q_row + cols[None, :], _e4m3(tl.math.div_rn(x, s[:, None])), mask=mask)
    else:
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            xc = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            tl.store(q_row + c[None, :], _e4m3(tl.math.div_rn(xc, s[:, None])), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _as_rows(t: torch.Tensor, N: int):
    """(2-d view [R, N] with unit element stride, row stride) or None."""
    if t.dim() == 0 or (t.stride(-1) != 1 and N > 1):
        return None
    try:
        v = t.view(-1, N)
    except RuntimeError:
        return None
    return v, (v.stride(0) if v.shape[0] > 1 else N)


def _prepare(result: torch.Tensor, input: torch.Tensor, name: str):
    if input.dim() < 1 or input.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise ValueError(f"{name}: input must be a float16, bfloat16 or float32 tensor")
    if result.shape != input.shape or result.dtype != torch.float8_e4m3fn:
        raise ValueError(f"{name}: result must be float8_e4m3fn of the input's shape")
    N = input.shape[-1]
    R = input.numel() // N if N else 0
    xin = _as_rows(input, N)
    if xin is None:
        xin = _as_rows(input.contiguous(), N)
    out = _as_rows(result.view(torch.uint8), N)
    if out is None:
        raise ValueError(f"{name}: result must have a unit stride along its last dimension "
                         "and one row stride")
    return R, N, xin[0], xin[1], out[0], out[1]


def _tiles(R, N, gpu):
    """(BR, BN, ONE_TILE, num_warps) for row-wise kernels."""
    if N > _MAX_ONE_TILE:
        return 1, 4096, False, 8
    bn = _pow2(N)
    if not gpu:
        return min(_pow2(R), max(1, 65536 // bn)), bn, True, 4
    br = min(_pow2(R), max(1, 4096 // bn))
    return br, bn, True, min(16, max(4, br * bn // 1024))


def static_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor,
                            scale: torch.Tensor) -> None:
    name = "static_scaled_fp8_quant"
    if scale.numel() != 1:
        raise ValueError(f"{name}: only a per-tensor scale ([1]) is supported")
    R, N, x, xs, q, qs = _prepare(result, input, name)
    if R == 0:
        return None
    gpu = x.device.type != "cpu"
    bn = min(_pow2(N), 1024 if gpu else 16384)
    br = min(_pow2(R), max(1, (4096 if gpu else 65536) // bn))
    _static_kernel[(triton.cdiv(R, br), triton.cdiv(N, bn))](
        x, q, scale, R, N, xs, qs, BR=br, BN=bn, num_warps=4)
    return None


def dynamic_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor,
                             scale: torch.Tensor) -> None:
    name = "dynamic_scaled_fp8_quant"
    if scale.numel() != 1 or scale.dtype != torch.float32:
        raise ValueError(f"{name}: scale must be a float32 tensor of one element")
    R, N, x, xs, q, qs = _prepare(result, input, name)
    if R == 0:
        return None
    gpu = x.device.type != "cpu"
    m = torch.empty(R, dtype=torch.float32, device=x.device)
    br, bn, _, warps = _tiles(R, N, gpu)
    bn = min(bn, 4096)
    _rowmax_kernel[(triton.cdiv(R, br),)](x, m, R, N, xs, BR=br, BN=bn, num_warps=warps)
    _tensor_scale_kernel[(1,)](m, scale, R, BLOCK=min(_pow2(R), 4096), num_warps=4)
    bn = min(_pow2(N), 1024 if gpu else 16384)
    br = min(_pow2(R), max(1, (4096 if gpu else 65536) // bn))
    _static_kernel[(triton.cdiv(R, br), triton.cdiv(N, bn))](
        x, q, scale, R, N, xs, qs, BR=br, BN=bn, num_warps=4)
    return None


def dynamic_per_token_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor,
                                       scale: torch.Tensor,
                                       scale_ub: torch.Tensor | None) -> None:
    name = "dynamic_per_token_scaled_fp8_quant"
    R, N, x, xs, q, qs = _prepare(result, input, name)
    if scale.numel() != R or scale.dtype != torch.float32 or not scale.is_contiguous():
        raise ValueError(f"{name}: scale must be contiguous float32 with {R} elements")
    if scale_ub is not None and scale_ub.numel() != 1:
        raise ValueError(f"{name}: scale_ub must hold one value")
    if R == 0:
        return None
    br, bn, one_tile, warps = _tiles(R, N, x.device.type != "cpu")
    _per_token_kernel[(triton.cdiv(R, br),)](
        x, q, scale, scale if scale_ub is None else scale_ub, R, N, xs, qs,
        HAS_UB=scale_ub is not None, BR=br, BN=bn, ONE_TILE=one_tile, num_warps=warps)
    return None
