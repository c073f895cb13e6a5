"""Shipped solution for aten::matmul: one batched, tiled tl.dot kernel.

matmul's dimension rules are applied on the host with views only: a 1-D first operand becomes a
(1, K) row and a 1-D second operand a (K, 1) column (the unit dimension is dropped from the
result), the batch dimensions (all but the last two) are broadcast against each other by
expanding (stride 0), and the result, or `out`, is viewed with the same unit dimensions so the
kernel writes it through its strides. The kernel computes C[b] = A[b] @ B[b] for every batch
position: up to three batch dimensions are decomposed from one program index, each operand with
its own batch strides; more are looped over on the host. Each program computes a
BLOCK_M x BLOCK_N output tile with a float32 accumulator and rounds once to the output dtype.
float32 products use input_precision="ieee" (no TF32).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, B1, B2,
                 sa0, sa1, sa2, s_am, s_ak,
                 sb0, sb1, sb2, s_bk, s_bn,
                 sc0, sc1, sc2, s_cm, s_cn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, PRECISION: tl.constexpr,
                 UPCAST: tl.constexpr):
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


def _gemm(a, b, out):
    """out[..., :, :] = a[..., :, :] @ b[..., :, :]; all three share the same batch shape
    (broadcast views with stride 0 are fine)."""
    nb = out.dim() - 2
    if nb > 3:  # the kernel decomposes three batch dims; loop over the leading ones
        for i in range(out.shape[0]):
            _gemm(a[i], b[i], out[i])
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
    bm, bn, bk, warps, stages = _config(a.dtype, a.device.type)
    cpu = a.device.type == "cpu"
    prec = "ieee" if a.dtype == torch.float32 or cpu else "tf32"
    n_batch = bshape[0] * bshape[1] * bshape[2]
    grid = (n_batch * triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _gemm_kernel[grid](
        a, b, out, M, N, K, bshape[1], bshape[2],
        sa[0], sa[1], sa[2], a.stride(-2), a.stride(-1),
        sb[0], sb[1], sb[2], b.stride(-2), b.stride(-1),
        sc[0], sc[1], sc[2], out.stride(-2), out.stride(-1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, EVEN_K=(K % bk == 0),
        PRECISION=prec, UPCAST=cpu,
        num_warps=warps, num_stages=stages)


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _matmul_into(self, other, out):
    dx, dy = self.dim(), other.dim()
    if dx == 0 or dy == 0:
        raise RuntimeError("matmul: both arguments need at least 1 dimension")
    if self.dtype != other.dtype or self.dtype not in _FLOATS:
        raise RuntimeError("matmul: both operands must have the same float16/bfloat16/float32 dtype")
    a = self.unsqueeze(0) if dx == 1 else self  # (..., M, K)
    b = other.unsqueeze(1) if dy == 1 else other  # (..., K, N)
    M, K = a.shape[-2], a.shape[-1]
    K2, N = b.shape[-2], b.shape[-1]
    if K != K2:
        raise RuntimeError(f"matmul: shapes {tuple(self.shape)} and {tuple(other.shape)} "
                           "cannot be multiplied")
    batch = list(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    shape = batch + ([M] if dx > 1 else []) + ([N] if dy > 1 else [])
    if out is None:
        out = torch.empty(shape, dtype=self.dtype, device=self.device)
    elif list(out.shape) != shape or out.dtype != self.dtype:
        raise RuntimeError(f"matmul: out must be {self.dtype} of shape {shape}")
    o = out
    if dx == 1:
        o = o.unsqueeze(len(batch))
    if dy == 1:
        o = o.unsqueeze(o.dim())
    _gemm(a.expand(batch + [M, K]), b.expand(batch + [K, N]), o)
    return out


def matmul(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return _matmul_into(self, other, None)


def matmul_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return _matmul_into(self, other, out)
