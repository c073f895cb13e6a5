"""Shipped solution for aten::bmm: one batched, tiled tl.dot kernel.

Each program computes a BLOCK_M x BLOCK_N tile of one batch entry's output, walking K in BLOCK_K
steps with a float32 accumulator (tiles of one batch entry are ordered in groups of GROUP_M tile
rows for L2 reuse). Every operand is read through its own strides, batch stride included, so
transposed, strided, offset and batch-broadcast (stride 0) operands are used as they are, and the
output (a fresh tensor or `out`) is written through its strides. float32 products use
input_precision="ieee" (no TF32). The `dtype` overloads store the float32 accumulator as float32.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                s_ab, s_am, s_ak, s_bb, s_bk, s_bn, s_cb, s_cm, s_cn,
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
    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # rows/cols past the edge load valid ones (never stored), so the loads need no M/N mask
    ld_m = offs_m % M
    ld_n = offs_n % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + bat64 * s_ab + (ld_m.to(tl.int64)[:, None] * s_am + offs_k[None, :] * s_ak)
    b_ptrs = b_ptr + bat64 * s_bb + (offs_k[:, None] * s_bk + ld_n.to(tl.int64)[None, :] * s_bn)

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

    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + bat64 * s_cb + (offs_m.to(tl.int64)[:, None] * s_cm
                                     + offs_n.to(tl.int64)[None, :] * s_cn)
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _config(dtype, device_type):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)"""
    if device_type == "cpu":  # CPU interpreter: few, large programs
        return 128, 128, 256, 4, 1
    if dtype == torch.float32:
        return 64, 128, 32, 4, 3
    return 128, 128, 64, 8, 3


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _bmm_into(self, mat2, out, out_dtype):
    if self.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError("bmm: both arguments must be 3-D")
    if self.dtype != mat2.dtype or self.dtype not in _FLOATS:
        raise RuntimeError("bmm: both operands must have the same float16/bfloat16/float32 dtype")
    B, M, K = self.shape
    B2, K2, N = mat2.shape
    if B != B2 or K != K2:
        raise RuntimeError(f"bmm: shapes {tuple(self.shape)} and {tuple(mat2.shape)} do not match")
    if out_dtype is None:
        out_dtype = self.dtype
    elif out_dtype != self.dtype and out_dtype != torch.float32:
        raise RuntimeError("bmm: out_dtype must be the input dtype or float32")
    if out is None:
        out = torch.empty((B, M, N), dtype=out_dtype, device=self.device)
    elif tuple(out.shape) != (B, M, N) or out.dtype != out_dtype:
        raise RuntimeError(f"bmm: out must be {out_dtype} of shape {(B, M, N)}")
    if out.numel() == 0:
        return out
    bm, bn, bk, warps, stages = _config(self.dtype, self.device.type)
    cpu = self.device.type == "cpu"
    prec = "ieee" if self.dtype == torch.float32 or cpu else "tf32"
    grid = (B * triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _bmm_kernel[grid](
        self, mat2, out, M, N, K,
        self.stride(0), self.stride(1), self.stride(2),
        mat2.stride(0), mat2.stride(1), mat2.stride(2),
        out.stride(0), out.stride(1), out.stride(2),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, EVEN_K=(K % bk == 0),
        PRECISION=prec, UPCAST=cpu, num_warps=warps, num_stages=stages)
    return out


def bmm(self: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    return _bmm_into(self, mat2, None, None)


def bmm_out(self: torch.Tensor, mat2: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return _bmm_into(self, mat2, out, None)


def bmm_dtype(self: torch.Tensor, mat2: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
    return _bmm_into(self, mat2, None, out_dtype)


def bmm_dtype_out(self: torch.Tensor, mat2: torch.Tensor, out_dtype: torch.dtype, *,
                  out: torch.Tensor) -> torch.Tensor:
    return _bmm_into(self, mat2, out, out_dtype)
