"""Shipped solution for cublasDgemmStridedBatched_64: one tiled tl.dot kernel.

Each program computes a BLOCK_M x BLOCK_N tile of the column-major C = alpha * op(A) op(B) + beta * C,
walking k in BLOCK_K steps: float64 operands with float64 accumulation.
op() is only a choice of strides: element (i, l) of op(A) is A[i + l*lda] for OP_N and A[l + i*lda]
for OP_T/OP_C (a real routine), so one kernel serves every trans pair. Tiles are grouped for L2
reuse; the epilogue applies alpha and beta (C is not read when beta == 0) and stores only the m x n
elements, so the gap rows of ldc stay untouched. Offsets are 64-bit.
Strided batch: program axis 1 walks the batch, and matrix i of each operand starts at
i * stride (64-bit); a stride of 0 (one A or B shared by the batch) needs nothing special.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, alpha: tl.float64, beta: tl.float64,
                 s_am, s_ak, s_bk, s_bn, ldc, stride_a, stride_b, stride_c, batch0,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr, EVEN_K: tl.constexpr, BETA_ZERO: tl.constexpr,
                 ACC: tl.constexpr, PRECISION: tl.constexpr, UPCAST: tl.constexpr):
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64) + batch0
    a_ptr += batch * stride_a
    b_ptr += batch * stride_b
    c_ptr += batch * stride_c
    # grouped ordering: GROUP_M tile rows are swept column by column (L2 reuse)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    row0 = group * GROUP_M
    rows_here = min(tiles_m - row0, GROUP_M)
    local = pid - group * per_group
    tile_m = row0 + local % rows_here
    tile_n = local // rows_here

    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # rows/columns past the edge are wrapped onto valid ones for the loads, never stored
    rm = (offs_m % M).to(tl.int64)
    rn = (offs_n % N).to(tl.int64)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (rm[:, None] * s_am + offs_k[None, :] * s_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * s_bk + rn[None, :] * s_bn)
    step_a = BLOCK_K * tl.cast(s_ak, tl.int64)
    step_b = BLOCK_K * tl.cast(s_bk, tl.int64)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k, other=0.0)
        if UPCAST:
            # CPU interpreter only: its tl.dot is slow on float16 and mishandles bfloat16; the
            # float32 products of 16-bit values are exact, so this changes nothing
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC)
        a_ptrs += step_a
        b_ptrs += step_b

    out = acc * alpha
    c_ptrs = c_ptr + (offs_m.to(tl.int64)[:, None] + offs_n.to(tl.int64)[None, :] * ldc)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if not BETA_ZERO:  # beta == 0: C is not read (NaN or Inf there must not leak)
        c = tl.load(c_ptrs, mask=mask, other=0.0)
        out += beta * c.to(ACC)
    tl.store(c_ptrs, out.to(c_ptr.dtype.element_ty), mask=mask)


def _rows_cols(trans, m, k):
    """(rows, cols) of the stored matrix whose op() is m x k."""
    return (m, k) if trans == 0 else (k, m)


def _check(name, transa, transb, m, n, k, lda, ldb, ldc, batch=1):
    if transa not in (0, 1, 2) or transb not in (0, 1, 2):
        raise ValueError(f"{name}: invalid cublasOperation_t")
    if m < 0 or n < 0 or k < 0 or batch < 0:
        raise ValueError(f"{name}: negative size")
    if (lda < max(1, _rows_cols(transa, m, k)[0]) or ldb < max(1, _rows_cols(transb, k, n)[0])
            or ldc < max(1, m)):
        raise ValueError(f"{name}: leading dimension too small")


def _config(dtype, on_gpu, m, n, k):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages). C is column-major, so the tile is
    taller than wide: its columns are the contiguous direction of C and of A with op N."""
    if not on_gpu:  # CPU interpreter: few, large programs
        return (max(16, min(256, triton.next_power_of_2(m))),
                max(16, min(256, triton.next_power_of_2(n))),
                max(16, min(256, triton.next_power_of_2(max(k, 1)))), 4, 1)
    if dtype == torch.float64:
        return 64, 64, 16, 4, 2
    if dtype == torch.float32:
        return 128, 64, 32, 4, 3
    return 256, 128, 64, 8, 3


def _gemm(transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
          stride_c, batch, acc):
    """alpha * op(A) op(B) + beta * C for `batch` matrices; alpha, beta already rounded."""
    if m == 0 or n == 0 or batch == 0:
        return
    s_am, s_ak = (1, lda) if transa == 0 else (lda, 1)
    s_bk, s_bn = (1, ldb) if transb == 0 else (ldb, 1)
    on_gpu = C.is_cuda
    bm, bn, bk, warps, stages = _config(A.dtype, on_gpu, m, n, k)
    wide = A.dtype in (torch.float32, torch.float64)
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    for b0 in range(0, batch, 65535):  # the grid's second dimension is at most 65535
        grid = (tiles, min(65535, batch - b0))
        _gemm_kernel[grid](A, B, C, m, n, k, alpha, beta, s_am, s_ak, s_bk, s_bn, ldc,
                           stride_a, stride_b, stride_c, b0,
                           BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, EVEN_K=(k % bk == 0),
                           BETA_ZERO=(beta == 0), ACC=acc,
                           PRECISION="ieee" if wide or not on_gpu else "tf32",
                           UPCAST=not (on_gpu or wide),
                           num_warps=warps, num_stages=stages)


def cublasDgemmStridedBatched_64(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C,
                                 ldc, strideC, batchCount):
    _check("cublasDgemmStridedBatched_64", transa, transb, m, n, k, lda, ldb, ldc, batchCount)
    _gemm(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
           strideC, batchCount, tl.float64)
    return None
