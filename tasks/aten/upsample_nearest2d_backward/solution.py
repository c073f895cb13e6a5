"""Shipped solution for aten::upsample_nearest2d_backward: two tiled kernels over grad_input.

The forward pass reads input row f(o) for output row o, with f(o) = o when the sizes are equal,
o >> 1 when the output is twice the input, and otherwise min(floor(o * s), in - 1) in float32,
s = 1 / scale when a positive scale is given and in / out otherwise (ATen's rule); columns
likewise. f is non-decreasing, so the output rows feeding input row i are one run
[start(i), start(i + 1)) (up to the end for the last row). Per dimension the host decides, in a
few scalar operations (see _plan), whether f(o) == o // r with out == r * in (equal sizes, exact
2x, or a power-of-two ratio whose float32 scale is exactly 1 / r, so no scale bends the mapping),
and otherwise bounds the longest run K.

Both kernels treat grad_input as R = N * C * IH rows of IW columns (n, c, ih recovered per row,
so the index arithmetic is per row and per column, never per element) and give each program a
[BH, BW] tile; every plane layout is reached through the strides, and sums are taken in float32
and rounded once.

1. Block kernel, when both dims map o -> o // r (rh, rw <= 16, powers of two): for
   each of the rh output rows of a tile row (static loop) it loads the matching contiguous
   [BH, BW * rw] tile of grad_output (whole coalesced rows, vectorised when the last stride is
   1), reshapes it to [BH, BW, rw] and sums the last axis inside each thread. grad_output is
   read exactly once and grad_input written once: the minimum traffic.
2. Gather kernel otherwise: per row the output-row run [h0, h1) and per column the output-column
   run [w0, w1) are found in-kernel (the first o with floor(o * s) >= i is ceil(i / s) up to
   rounding, fixed by testing its neighbours), then KH x KW masked taps (KH, KW the host's
   bounds on the longest runs, compile-time; unrolled when small) load go[h0 + dh, w0 + dw]
   over the tile. Neighbouring columns' taps share cache lines and each output row belongs to
   one input row, so DRAM still sees each grad_output byte about once.
"""

import math
import struct

import torch
import triton
import triton.language as tl


@triton.jit
def _start(i, IN, OUT, s, MODE: tl.constexpr):
    # first output index whose source is >= i (for 0 <= i < IN), capped at OUT
    if MODE == 0:
        r = i
    elif MODE == 1:
        r = 2 * i
    else:
        e = tl.ceil(i.to(tl.float32) / s).to(tl.int64)
        r = e + 2
        for delta in tl.static_range(4):
            c = tl.maximum(e + 1 - delta, 0)
            r = tl.where(tl.floor(c.to(tl.float32) * s).to(tl.int64) >= i, c, r)
    return tl.minimum(r, OUT)


@triton.jit
def _rows(pid_r, R, C, IH, BH: tl.constexpr):
    # grad_input rows (n, c, ih) of a row block
    rows = pid_r.to(tl.int64) * BH + tl.arange(0, BH)
    ih = rows % IH
    pl = rows // IH
    return rows < R, ih, pl // C, pl % C


@triton.jit
def _block_kernel(go_ptr, gi_ptr, R, C, IH, IW, OW, n_cblk,
                  s_on, s_oc, s_oh, s_ow, s_in, s_ic, s_ih, s_iw,
                  RH: tl.constexpr, RW: tl.constexpr, BH: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_cblk
    pid_c = pid - pid_r * n_cblk
    rok, ih, n, c = _rows(pid_r, R, C, IH, BH)
    ocol = pid_c.to(tl.int64) * (BW * RW) + tl.arange(0, BW * RW)
    m = rok[:, None] & (ocol < OW)[None, :]
    src = go_ptr + (n * s_on + c * s_oc + ih * (RH * s_oh))[:, None] + (ocol * s_ow)[None, :]
    acc = tl.zeros((BH, BW), dtype=tl.float32)
    for dh in tl.static_range(RH):
        v = tl.load(src + dh * s_oh, mask=m, other=0.0).to(tl.float32)
        acc += tl.sum(tl.reshape(v, (BH, BW, RW)), axis=2)
    iw = pid_c.to(tl.int64) * BW + tl.arange(0, BW)
    dst = gi_ptr + (n * s_in + c * s_ic + ih * s_ih)[:, None] + (iw * s_iw)[None, :]
    tl.store(dst, acc.to(gi_ptr.dtype.element_ty), mask=rok[:, None] & (iw < IW)[None, :])


@triton.jit
def _gather_kernel(go_ptr, gi_ptr, R, C, IH, IW, OH, OW, n_cblk,
                   s_on, s_oc, s_oh, s_ow, s_in, s_ic, s_ih, s_iw, sh, sw,
                   MODE_H: tl.constexpr, MODE_W: tl.constexpr, KH: tl.constexpr,
                   KW: tl.constexpr, UNROLL: tl.constexpr, BH: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_cblk
    pid_c = pid - pid_r * n_cblk
    rok, ih, n, c = _rows(pid_r, R, C, IH, BH)
    iw = pid_c.to(tl.int64) * BW + tl.arange(0, BW)
    cok = iw < IW
    h0 = _start(ih, IH, OH, sh, MODE_H)
    h1 = tl.where(ih + 1 < IH, _start(ih + 1, IH, OH, sh, MODE_H), OH)
    w0 = _start(iw, IW, OW, sw, MODE_W)
    w1 = tl.where(iw + 1 < IW, _start(iw + 1, IW, OW, sw, MODE_W), OW)
    nh = tl.where(rok, tl.maximum(h1 - h0, 0), 0)
    nw = tl.where(cok, tl.maximum(w1 - w0, 0), 0)
    row = n * s_on + c * s_oc + h0 * s_oh
    col = w0 * s_ow
    acc = tl.zeros((BH, BW), dtype=tl.float32)
    if UNROLL:
        for dh in tl.static_range(KH):
            for dw in tl.static_range(KW):
                p = go_ptr + (row + dh * s_oh)[:, None] + (col + dw * s_ow)[None, :]
                v = tl.load(p, mask=(dh < nh)[:, None] & (dw < nw)[None, :], other=0.0)
                acc += v.to(tl.float32)
    else:
        for dh in range(KH):
            for dw in range(KW):
                p = go_ptr + (row + dh * s_oh)[:, None] + (col + dw * s_ow)[None, :]
                v = tl.load(p, mask=(dh < nh)[:, None] & (dw < nw)[None, :], other=0.0)
                acc += v.to(tl.float32)
    dst = gi_ptr + (n * s_in + c * s_ic + ih * s_ih)[:, None] + (iw * s_iw)[None, :]
    tl.store(dst, acc.to(gi_ptr.dtype.element_ty), mask=rok[:, None] & cok[None, :])


def _mode(inp, out):
    if out == inp:
        return 0
    if out == 2 * inp:
        return 1
    return 2


def _f32(x):
    """x rounded to float32 (round to nearest even, as the GPU's float32 ops round)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _plan(inp, out, s):
    """(r, k) for one dim, s being the float32 scale. r > 0 when f(o) == o // r exactly (the
    block kernel's mapping), else 0; k bounds the longest run of outputs sharing one source.

    Interior runs: g(o) = fl32(o * s) is non-decreasing and within a relative 2^-24 of o * s, so
    when m * s > 1 + 2^-23 * (out + m) * s, g(o + m) > g(o) + 1 for every o < out and no row
    other than the last gets more than m outputs. The last row (which also takes the outputs
    clamped to in - 1) gets out - start(in - 1), computed exactly like the kernel's _start."""
    mode = _mode(inp, out)
    if mode == 0:
        return 1, 1
    if mode == 1:
        return 2, 2
    if out == 0:
        return 0, 0
    r = out // inp
    if r > 0 and out == r * inp and r & (r - 1) == 0 and s == 1.0 / r and out <= 1 << 24:
        return r, r  # s a power of two: o * s is exact in float32 and floor(o * s) == o >> log2(r)
    m = max(1, int(1.0 / s))
    while m < out and m * s <= 1.0 + (out + m) * s * 2.0 ** -23:
        m += 1
    i = inp - 1
    e = math.ceil(i / s)
    start = min((c for c in range(max(e - 2, 0), e + 3) if math.floor(_f32(c * s)) >= i),
                default=max(e - 2, 0))
    return 0, min(out, max(m, out - start))


def _bw_into(grad_output, output_size, input_size, scales_h, scales_w, grad_input):
    output_size = [int(v) for v in output_size]
    input_size = [int(v) for v in input_size]
    if len(output_size) != 2 or len(input_size) != 4:
        raise RuntimeError("upsample_nearest2d_backward: output_size has 2 and input_size 4 entries")
    N, C, IH, IW = input_size
    OH, OW = output_size
    if list(grad_output.shape) != [N, C, OH, OW]:
        raise RuntimeError(f"upsample_nearest2d_backward: grad_output must have shape "
                           f"{[N, C, OH, OW]}")
    if grad_input is None:
        grad_input = torch.empty(input_size, dtype=grad_output.dtype, device=grad_output.device)
    elif list(grad_input.shape) != input_size or grad_input.dtype != grad_output.dtype:
        raise RuntimeError(f"upsample_nearest2d_backward: grad_input must be "
                           f"{grad_output.dtype} of shape {input_size}")
    total = grad_input.numel()
    if total == 0:
        return grad_input
    # The scale is computed here, not in the kernel: Triton divides float32 approximately on
    # NVIDIA GPUs (div.full.f32), and one ulp off ATen's scale moves floor(o * s) at run
    # boundaries. in / out in double, rounded once to float32 when passed, is the correctly
    # rounded float32 quotient ATen computes.
    sh = 1.0 / scales_h if scales_h is not None and scales_h > 0 else IH / max(OH, 1)
    sw = 1.0 / scales_w if scales_w is not None and scales_w > 0 else IW / max(OW, 1)
    rh, kh = _plan(IH, OH, _f32(sh))
    rw, kw = _plan(IW, OW, _f32(sw))
    gpu = grad_output.device.type != "cpu"
    R = N * C * IH
    go_s = [grad_output.stride(d) for d in range(4)]
    gi_s = [grad_input.stride(d) for d in range(4)]
    if 0 < rh <= 16 and 0 < rw <= 16 and rw & (rw - 1) == 0:
        # output columns per program row: a whole grad_output row up to 256 (GPU)
        bw = min(triton.next_power_of_2(IW), max(1, (256 if gpu else 4096) // rw))
        bh = min(triton.next_power_of_2(R), max(1, (4096 if gpu else 16384) // (bw * rw)))
        n_cblk = triton.cdiv(IW, bw)
        _block_kernel[(triton.cdiv(R, bh) * n_cblk,)](
            grad_output, grad_input, R, C, IH, IW, OW, n_cblk, *go_s, *gi_s,
            RH=rh, RW=rw, BH=bh, BW=bw, num_warps=8)
    else:
        bw = min(triton.next_power_of_2(IW), 128 if gpu else 1024)
        bh = min(triton.next_power_of_2(R), max(1, (1024 if gpu else 8192) // bw))
        n_cblk = triton.cdiv(IW, bw)
        _gather_kernel[(triton.cdiv(R, bh) * n_cblk,)](
            grad_output, grad_input, R, C, IH, IW, OH, OW, n_cblk, *go_s, *gi_s,
            sh, sw, MODE_H=_mode(IH, OH), MODE_W=_mode(IW, OW), KH=kh, KW=kw,
            UNROLL=kh * kw <= 16, BH=bh, BW=bw, num_warps=4)
    return grad_input


def upsample_nearest2d_backward(grad_output: torch.Tensor, output_size, input_size,
                                scales_h=None, scales_w=None) -> torch.Tensor:
    return _bw_into(grad_output, output_size, input_size, scales_h, scales_w, None)


def upsample_nearest2d_backward_grad_input(grad_output: torch.Tensor, output_size, input_size,
                                           scales_h=None, scales_w=None, *,
                                           grad_input: torch.Tensor) -> torch.Tensor:
    return _bw_into(grad_output, output_size, input_size, scales_h, scales_w, grad_input)
