"""Shipped solution for cublasHgemmBatched: every product of the batch in one Triton launch.

Aarray, Barray and Carray are Python lists of 1-D float16 tensors (cuBLAS's arrays of device
pointers). The wrapper builds one int64 table of their addresses per operand and the kernel
turns the loaded address back into a typed pointer, so one launch covers the whole batch: grid
axis 0 tiles C (BM x BN tiles), axis 1 is the batch index. op(A) and op(B) are read through
(row, column) strides, so N and T (C = T for this real routine) share one kernel.
float16 tiles go to tl.dot with float32 accumulation; alpha and beta are rounded to float16
(the routine's __half) and applied in float32, C rounded to float16 once.
alpha == 0 reads neither A nor B (the k loop is skipped); beta == 0 never reads C. Offsets are
64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_batched_kernel(a_tab, b_tab, c_tab, M, N, K, s_am, s_ak, s_bk, s_bn, ldc,
                         alpha: tl.float32, beta: tl.float32, BETA_ZERO: tl.constexpr, BM: tl.constexpr,
                         BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    bat = tl.program_id(1)
    a_ptr = tl.load(a_tab + bat).to(tl.pointer_type(tl.float16))
    b_ptr = tl.load(b_tab + bat).to(tl.pointer_type(tl.float16))
    c_ptr = tl.load(c_tab + bat).to(tl.pointer_type(tl.float16))
    # grouped tile order: neighbouring programs share A row panels in L2
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    width = GROUP * tiles_n
    group = pid // width
    first_m = group * GROUP
    size_m = tl.minimum(tiles_m - first_m, GROUP)
    tm = first_m + (pid % width) % size_m
    tn = (pid % width) // size_m
    rm = (tm * BM + tl.arange(0, BM)).to(tl.int64)
    rn = (tn * BN + tl.arange(0, BN)).to(tl.int64)
    rk = tl.arange(0, BK).to(tl.int64)
    mask_m = rm < M
    mask_n = rn < N
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + rk
        mk = ks < K
        a = tl.load(a_ptr + rm[:, None] * s_am + ks[None, :] * s_ak,
                    mask=mask_m[:, None] & mk[None, :], other=0.0)
        b = tl.load(b_ptr + ks[:, None] * s_bk + rn[None, :] * s_bn,
                    mask=mk[:, None] & mask_n[None, :], other=0.0)
        acc += tl.dot(a, b, out_dtype=tl.float32)
    c_offs = rm[:, None] + rn[None, :] * ldc
    c_mask = mask_m[:, None] & mask_n[None, :]
    out = alpha * acc
    if not BETA_ZERO:
        c_old = tl.load(c_ptr + c_offs, mask=c_mask, other=0.0).to(tl.float32)
        out += beta * c_old
    tl.store(c_ptr + c_offs, out.to(tl.float16), mask=c_mask)


def _half(x):
    """The __half cuBLAS receives."""
    return float(torch.tensor(x, dtype=torch.float16))


def _table(mats, count, device):
    return torch.tensor([t.data_ptr() for t in mats[:count]], dtype=torch.int64, device=device)


def cublasHgemmBatched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc,
       batchCount):
    if transa not in (0, 1, 2) or transb not in (0, 1, 2):
        raise ValueError("cublasHgemmBatched: invalid cublasOperation_t")
    if m < 0 or n < 0 or k < 0 or batchCount < 0:
        raise ValueError("cublasHgemmBatched: negative size")
    if m == 0 or n == 0 or batchCount == 0:
        return None
    dev = Carray[0].device
    alpha = _half(alpha)
    beta = _half(beta)
    s_am, s_ak = (1, lda) if transa == 0 else (lda, 1)
    s_bk, s_bn = (1, ldb) if transb == 0 else (ldb, 1)
    k_eff = k if alpha != 0 else 0
    gpu = Carray[0].is_cuda
    if gpu:
        bm, bn, bk, warps, stages = 128, 128, 64, 8, 3
    else:
        bm, bn, bk, warps, stages = 64, 64, 64, 4, 1
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batchCount)
    _gemm_batched_kernel[grid](_table(Aarray, batchCount, dev), _table(Barray, batchCount, dev),
                               _table(Carray, batchCount, dev), m, n, k_eff, s_am, s_ak, s_bk,
                               s_bn, ldc, alpha, beta, BETA_ZERO=(beta == 0), BM=bm, BN=bn,
                               BK=bk, GROUP=8, num_warps=warps, num_stages=stages)
    return None
