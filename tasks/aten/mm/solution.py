"""Shipped solution for aten::mm: one tiled tl.dot kernel.

Each program computes a BLOCK_M x BLOCK_N tile of the output, walking K in BLOCK_K steps and
accumulating in float32. Programs are ordered in groups of GROUP_M tile rows so that tiles
running at the same time share rows of A and columns of B in L2. Both operands are read through
their strides. On a GPU, an operand whose layout would make the tile loads slow (a leading stride
or base address that is not 16-byte aligned, a step along its rows, or for float32 a layout
other than row-major) is first copied into a dense aligned layout when it is reused enough:
O(MK + KN) bytes against O(MNK) work. float32 products use input_precision="ieee" (full float32,
no TF32).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, PRECISION: tl.constexpr,
               ACC: tl.constexpr, UPCAST: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # grouped ordering: GROUP_M tile rows are swept column by column
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    row0 = group * GROUP_M
    rows_here = min(tiles_m - row0, GROUP_M)
    local = pid - group * per_group
    tile_m = row0 + local % rows_here
    tile_n = local // rows_here

    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # rows/cols past the edge are wrapped onto valid ones for the loads (never stored)
    ld_m = offs_m % M
    ld_n = offs_n % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (ld_m.to(tl.int64)[:, None] * s_am + offs_k[None, :] * s_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * s_bk + ld_n.to(tl.int64)[None, :] * s_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k, other=0.0)
        if UPCAST:
            # CPU interpreter only: its tl.dot mishandles bfloat16 operands and is slow on
            # float16; the float32 products of 16-bit values are exact, so this changes nothing
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC)
        a_ptrs += BLOCK_K * s_ak
        b_ptrs += BLOCK_K * s_bk

    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + (offs_m.to(tl.int64)[:, None] * s_cm + offs_n[None, :] * s_cn)
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _config(dtype, device_type, b_k_major=False):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)"""
    if device_type == "cpu":  # CPU interpreter: few, large programs
        return 256, 256, 512, 4, 1
    if dtype == torch.float32:
        return 64, 128, 32, 4, 3
    if dtype == torch.float64:
        return 64, 64, 16, 4, 2
    return (256, 128, 64, 8, 3) if b_k_major else (128, 256, 64, 8, 3)


def _dense(t, row_major_first):
    """A dense copy of a 2-D operand, row-major or column-major, whichever keeps the leading
    dimension 16-byte aligned (row_major_first says which to try first); None if neither."""
    es = t.element_size()
    for row_major in ((True, False) if row_major_first else (False, True)):
        lead = t.shape[1] if row_major else t.shape[0]
        if lead * es % 16 == 0:
            return t.contiguous() if row_major else t.t().contiguous().t()
    return None


def _well_laid(t, need_row_major):
    """Whether a 2-D operand is dense along one dim with a 16-byte aligned base and leading
    stride (what the tensor-core pipeline wants); need_row_major also asks for stride(1) == 1."""
    es = t.element_size()
    if t.data_ptr() % 16:
        return False
    if t.stride(1) == 1 or t.shape[1] == 1:
        return t.stride(0) * es % 16 == 0 or t.shape[0] == 1
    if need_row_major:
        return False
    return t.stride(0) == 1 and t.stride(1) * es % 16 == 0


def _prepare(a, b):
    """On a GPU, copy an operand whose layout would force slow loads (misaligned, strided, or
    for float32 not row-major) once it is reused enough for the copy to pay off."""
    if a.device.type == "cpu":
        return a, b
    full = a.dtype in (torch.float32, torch.float64)  # the FMA path prefers row-major tiles
    M, N = a.shape[0], b.shape[1]
    if N >= 128 and not _well_laid(a, full):
        c = _dense(a, full or a.stride(1) == 1)
        a = c if c is not None else a
    if M >= 128 and not _well_laid(b, full):
        c = _dense(b, full or b.stride(1) == 1)
        b = c if c is not None else b
    return a, b


def mm(self: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    if self.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError("mm: both arguments must be 2-D")
    M, K = self.shape
    K2, N = mat2.shape
    if K != K2:
        raise RuntimeError(f"mm: shapes {tuple(self.shape)} and {tuple(mat2.shape)} cannot be multiplied")
    if self.dtype != mat2.dtype:
        raise RuntimeError("mm: expected both operands to have the same dtype")
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M == 0 or N == 0:
        return out
    a, b = _prepare(self, mat2)
    bm, bn, bk, warps, stages = _config(self.dtype, self.device.type, b.stride(0) == 1 and b.stride(1) != 1)
    acc = tl.float64 if self.dtype == torch.float64 else tl.float32
    prec = "ieee" if self.dtype in (torch.float32, torch.float64) or self.device.type == "cpu" else "tf32"
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _mm_kernel[grid](
        a, b, out, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        out.stride(0), out.stride(1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, EVEN_K=(K % bk == 0),
        PRECISION=prec, ACC=acc, UPCAST=self.device.type == "cpu", num_warps=warps, num_stages=stages)
    return out
