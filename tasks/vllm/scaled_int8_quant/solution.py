"""Shipped solution for vLLM's int8 activation quantization: one Triton kernel per op, one read
of `input` and one write of `result`.

static_scaled_int8_quant is elementwise: the contiguous input is seen as one flat run, each
program quantizing a block of it with the one scale (and zero point) loaded once.

dynamic_scaled_int8_quant needs each row's statistics before its first output: a program owns
[BR rows, BN] tiles. A row of up to 16384 elements is loaded once and kept in registers (short
rows, e.g. 64 or 128, are packed many to a program); longer rows take two passes over column
chunks (statistics, then quantization).

The int8 result is exact, so the arithmetic is the kernel's float32 arithmetic, operation by
operation: divisions are correctly rounded (`tl.math.div_rn`: the `/` operator is an approximate
division on NVIDIA GPUs), and the kernels are launched with enable_fp_fusion=False, so that no
product is fused into the following addition (round-half-even is the 1.5 * 2^23 trick: adding
and subtracting it rounds a float32 of magnitude below 2^22 to an integer, ties to even, which
only holds when the product was rounded first).
"""

import torch
import triton
import triton.language as tl

_MAX_ONE_TILE = 16384  # longest row kept in registers; longer rows take two passes
_RNE = tl.constexpr(12582912.0)  # 1.5 * 2^23
_CLAMP = tl.constexpr(4194303.0)  # below 2^22, where the trick is exact; far outside int8


@triton.jit
def _rne(v):
    """Round float32 v to an integer value, ties to even (saturating far outside int8)."""
    v = tl.minimum(tl.maximum(v, -_CLAMP), _CLAMP)
    return (v + _RNE) - _RNE


@triton.jit
def _sat8(r):
    return tl.minimum(tl.maximum(r, -128.0), 127.0).to(tl.int8)


@triton.jit
def _static_kernel(x_ptr, q_ptr, scale_ptr, azp_ptr, N,
                   HAS_AZP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(scale_ptr).to(tl.float32)
    if HAS_AZP:
        inv = tl.math.div_rn(tl.full([], 1.0, tl.float32), s)
        zp = tl.load(azp_ptr).to(tl.float32)
        r = _rne(x * inv) + zp
    else:
        r = _rne(tl.math.div_rn(x, s))
    tl.store(q_ptr + offs, _sat8(r), mask=mask)


@triton.jit
def _dynamic_kernel(x_ptr, q_ptr, scale_ptr, azp_ptr, R, N,
                    HAS_AZP: tl.constexpr, BR: tl.constexpr, BN: tl.constexpr,
                    ONE_TILE: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    r_ok = rows < R
    cols = tl.arange(0, BN).to(tl.int64)
    x_row = x_ptr + (rows * N)[:, None]
    q_row = q_ptr + (rows * N)[:, None]
    # Statistics: |x| max (symmetric), or max and min (asymmetric).
    if ONE_TILE:
        mask = r_ok[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        if HAS_AZP:
            hi = tl.max(tl.where(mask, x, -float("inf")), axis=1)
            lo = tl.min(tl.where(mask, x, float("inf")), axis=1)
        else:
            amax = tl.max(tl.abs(x), axis=1)
    else:
        if HAS_AZP:
            hi_acc = tl.full([BR, BN], -float("inf"), tl.float32)
            lo_acc = tl.full([BR, BN], float("inf"), tl.float32)
        else:
            amax_acc = tl.zeros([BR, BN], tl.float32)
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            xc = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            if HAS_AZP:
                hi_acc = tl.maximum(hi_acc, tl.where(mask, xc, -float("inf")))
                lo_acc = tl.minimum(lo_acc, tl.where(mask, xc, float("inf")))
            else:
                amax_acc = tl.maximum(amax_acc, tl.abs(xc))
        if HAS_AZP:
            hi = tl.max(hi_acc, axis=1)
            lo = tl.min(lo_acc, axis=1)
        else:
            amax = tl.max(amax_acc, axis=1)
    # Per-row parameters, as the kernel forms them in float32.
    if HAS_AZP:
        s = tl.math.div_rn(hi - lo, tl.full([BR], 255.0, tl.float32))
        zp = _rne(-128.0 - tl.math.div_rn(lo, s))
        inv = tl.math.div_rn(tl.full([BR], 1.0, tl.float32), s)
        tl.store(scale_ptr + rows, s, mask=r_ok)
        tl.store(azp_ptr + rows, zp.to(tl.int32), mask=r_ok)
    else:
        s = tl.math.div_rn(amax, tl.full([BR], 127.0, tl.float32))
        inv = tl.where(amax == 0.0, 0.0, tl.math.div_rn(tl.full([BR], 127.0, tl.float32), amax))
        tl.store(scale_ptr + rows, s, mask=r_ok)
    # Quantization.
    if ONE_TILE:
        r = _rne(x * inv[:, None])
        if HAS_AZP:
            r = r + zp[:, None]
        tl.store(q_row + cols[None, :], _sat8(r), mask=mask)
    else:
        for start in range(0, N, BN):
            c = start + cols
            mask = r_ok[:, None] & (c < N)[None, :]
            xc = tl.load(x_row + c[None, :], mask=mask, other=0.0).to(tl.float32)
            r = _rne(xc * inv[:, None])
            if HAS_AZP:
                r = r + zp[:, None]
            tl.store(q_row + c[None, :], _sat8(r), mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _check(result: torch.Tensor, input: torch.Tensor, name: str) -> None:
    if result.shape != input.shape or result.dtype != torch.int8 or input.dim() < 1:
        raise ValueError(f"{name}: result must be an int8 tensor of the input's shape "
                         f"{list(input.shape)}, got {result.dtype} {list(result.shape)}")
    if not result.is_contiguous():
        raise ValueError(f"{name}: result must be contiguous")


def static_scaled_int8_quant(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor,
                             azp: torch.Tensor | None) -> None:
    _check(result, input, "static_scaled_int8_quant")
    if scale.numel() != 1 or (azp is not None and azp.numel() != 1):
        raise ValueError("static_scaled_int8_quant: scale and azp must hold one value each")
    N = input.numel()
    if N == 0:
        return None
    x = input if input.is_contiguous() else input.contiguous()
    block = 65536 if x.device.type == "cpu" else 4096
    _static_kernel[(triton.cdiv(N, block),)](
        x, result, scale, azp if azp is not None else scale, N,
        HAS_AZP=azp is not None, BLOCK=block, num_warps=8, enable_fp_fusion=False)
    return None


def _tiles(R, N, gpu):
    """(BR, BN, ONE_TILE, num_warps)."""
    if N > _MAX_ONE_TILE:
        return 1, 4096, False, 8
    bn = _pow2(N)
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        return min(_pow2(R), max(1, 65536 // bn)), bn, True, 4
    br = min(_pow2(R), max(1, 4096 // bn))
    return br, bn, True, min(16, max(4, br * bn // 1024))


def dynamic_scaled_int8_quant(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor,
                              azp: torch.Tensor | None) -> None:
    _check(result, input, "dynamic_scaled_int8_quant")
    N = input.shape[-1]
    R = input.numel() // N if N else 0
    for t, name in ((scale, "scale"), (azp, "azp")):
        if t is not None and (t.numel() != R or not t.is_contiguous()):
            raise ValueError(f"dynamic_scaled_int8_quant: {name} must be a contiguous tensor of "
                             f"{R} elements (one per token), got {list(t.shape)}")
    if R == 0:
        return None
    x = input if input.is_contiguous() else input.contiguous()
    br, bn, one_tile, warps = _tiles(R, N, x.device.type != "cpu")
    _dynamic_kernel[(triton.cdiv(R, br),)](
        x, result, scale, azp if azp is not None else scale, R, N,
        HAS_AZP=azp is not None, BR=br, BN=bn, ONE_TILE=one_tile, num_warps=warps,
        enable_fp_fusion=False)
    return None
