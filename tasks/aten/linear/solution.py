"""Shipped solution for aten::linear: one batched, tiled tl.dot kernel with a bias epilogue.

linear(input, weight, bias) = input @ weight^T (+ bias). The product is computed as a batch of
matrix products C[b] = A[b] @ B[b] (+ bias[b]), where A is `input` seen as (batch..., M, K) and
B is `weight` seen transposed, (K, N), through its strides (no copy). Up to three batch
dimensions are decomposed inside the kernel from one program index, each operand with its own
batch strides (0 where broadcast); more are looped over on the host. Each program computes a
BLOCK_M x BLOCK_N output tile with a float32 accumulator, adds the bias in float32 and rounds
once to the output dtype, storing through the output's strides (a fresh tensor or `out`).
float32 products use input_precision="ieee" (no TF32).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, B1, B2,
                 sa0, sa1, sa2, s_am, s_ak,
                 sb0, sb1, sb2, s_bk, s_bn,
                 sc0, sc1, sc2, s_cm, s_cn,
                 sd0, sd1, sd2, s_dm, s_dn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, PRECISION: tl.constexpr,
                 UPCAST: tl.constexpr, HAS_BIAS: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_batch = tiles_m * tiles_n
    bat = pid // per_batch
    pid = pid - bat * per_batch
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    row0 = group * GROUP_M
    rows_here = min(tiles_m - row0, GROUP_M)
    local = pid - group * per_group
    tile_m = row0 + local % rows_here
    tile_n = local // rows_here

    bat64 = bat.to(tl.int64)
    i2 = bat64 % B2
    rest = bat64 // B2
    i1 = rest % B1
    i0 = rest // B1

    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # rows/cols past the edge load valid ones (never stored), so the loads need no M/N mask
    ld_m = (offs_m % M).to(tl.int64)
    ld_n = (offs_n % N).to(tl.int64)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = (a_ptr + (i0 * sa0 + i1 * sa1 + i2 * sa2)
              + (ld_m[:, None] * s_am + offs_k[None, :] * s_ak))
    b_ptrs = (b_ptr + (i0 * sb0 + i1 * sb1 + i2 * sb2)
              + (offs_k[:, None] * s_bk + ld_n[None, :] * s_bn))

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k, other=0.0)
        if UPCAST:
            # CPU interpreter only: its tl.dot mishandles bfloat16 operands (and is slow on
            # float16); products of 16-bit values are exact in float32, so nothing changes
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=tl.float32)
        a_ptrs += BLOCK_K * s_ak
        b_ptrs += BLOCK_K * s_bk

    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if HAS_BIAS:
        d_ptrs = (bias_ptr + (i0 * sd0 + i1 * sd1 + i2 * sd2)
                  + (ld_m[:, None] * s_dm + ld_n[None, :] * s_dn))
        acc += tl.load(d_ptrs).to(tl.float32)
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = (c_ptr + (i0 * sc0 + i1 * sc1 + i2 * sc2)
              + (offs_m.to(tl.int64)[:, None] * s_cm + offs_n.to(tl.int64)[None, :] * s_cn))
    tl.store(c_ptrs, c, mask=mask)


def _config(dtype, device_type):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)"""
    if device_type == "cpu":  # CPU interpreter: few, large programs
        return 128, 128, 256, 4, 1
    if dtype == torch.float32:
        return 64, 128, 32, 4, 3
    return 128, 128, 64, 8, 3


def _gemm(a, b, out, bias):
    """out[..., :, :] = a[..., :, :] @ b[..., :, :] (+ bias[..., :, :]); all four share the same
    batch shape (broadcast views with stride 0 are fine); bias may be None."""
    nb = out.dim() - 2
    if nb > 3:  # the kernel decomposes three batch dims; loop over the leading ones
        for i in range(out.shape[0]):
            _gemm(a[i], b[i], out[i], None if bias is None else bias[i])
        return
    M, N = out.shape[-2], out.shape[-1]
    K = a.shape[-1]
    if out.numel() == 0:
        return
    pad = [1] * (3 - nb)
    zero = [0] * (3 - nb)
    bshape = pad + list(out.shape[:nb])
    sa = zero + [a.stride(d) for d in range(nb)]
    sb = zero + [b.stride(d) for d in range(nb)]
    sc = zero + [out.stride(d) for d in range(nb)]
    if bias is None:
        sd = [0, 0, 0, 0, 0]
        bias_arg = out
    else:
        sd = zero + [bias.stride(d) for d in range(nb + 2)]
        bias_arg = bias
    bm, bn, bk, warps, stages = _config(a.dtype, a.device.type)
    cpu = a.device.type == "cpu"
    prec = "ieee" if a.dtype == torch.float32 or cpu else "tf32"
    n_batch = bshape[0] * bshape[1] * bshape[2]
    grid = (n_batch * triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _gemm_kernel[grid](
        a, b, out, bias_arg, M, N, K, bshape[1], bshape[2],
        sa[0], sa[1], sa[2], a.stride(-2), a.stride(-1),
        sb[0], sb[1], sb[2], b.stride(-2), b.stride(-1),
        sc[0], sc[1], sc[2], out.stride(-2), out.stride(-1),
        sd[0], sd[1], sd[2], sd[3], sd[4],
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, EVEN_K=(K % bk == 0),
        PRECISION=prec, UPCAST=cpu, HAS_BIAS=bias is not None,
        num_warps=warps, num_stages=stages)


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _linear_into(input, weight, bias, out):
    if input.dtype not in _FLOATS or weight.dtype != input.dtype or (
            bias is not None and bias.dtype != input.dtype):
        raise RuntimeError("linear: input, weight and bias must share one floating dtype")
    if input.dim() == 0 or weight.dim() not in (1, 2):
        raise RuntimeError("linear: input must be at least 1-D and weight 1-D or 2-D")
    K = input.shape[-1]
    if weight.shape[-1] != K:
        raise RuntimeError(f"linear: shapes {tuple(input.shape)} and {tuple(weight.shape)} "
                           "cannot be multiplied")
    # A: input as (batch..., M, K); B: weight^T as (K, N); a 1-D operand gets a unit dim
    a = input.unsqueeze(0) if input.dim() == 1 else input
    b = weight.t() if weight.dim() == 2 else weight.unsqueeze(1)
    batch = list(a.shape[:-2])
    M, N = a.shape[-2], b.shape[-1]
    shape = list(input.shape[:-1]) + ([N] if weight.dim() == 2 else [])
    if out is None:
        out = torch.empty(shape, dtype=input.dtype, device=input.device)
    elif list(out.shape) != shape or out.dtype != input.dtype:
        raise RuntimeError(f"linear: out must be {input.dtype} of shape {shape}")
    o = out
    d = None if bias is None else bias.expand(shape)
    if input.dim() == 1:
        o = o.unsqueeze(0)
        d = None if d is None else d.unsqueeze(0)
    if weight.dim() == 1:
        o = o.unsqueeze(o.dim())
        d = None if d is None else d.unsqueeze(d.dim())
    _gemm(a, b.expand(batch + [K, N]), o, d)
    return out


def linear(input: torch.Tensor, weight: torch.Tensor, bias=None) -> torch.Tensor:
    return _linear_into(input, weight, bias, None)


def linear_out(input: torch.Tensor, weight: torch.Tensor, bias=None, *,
               out: torch.Tensor) -> torch.Tensor:
    return _linear_into(input, weight, bias, out)
