"""Shipped solution for cublasSgemvStridedBatched: y_b = alpha*op(A_b) x_b + beta*y_b, one launch.

Grid: (batch member, block of outputs). op = N: a program owns BLOCK_R rows of y_b and walks
the columns of A_b; its tiles run down the contiguous (column-major) dimension. op = T (and C,
the same for real data): a program owns BLOCK_R columns of A_b and walks down them. Products
accumulate in a float32 tile that is reduced once at the end. BLAS vectors: element i at
base + i*inc, base = (len-1)*|inc| for a negative increment. Batch and element offsets are
64-bit. beta == 0 skips reading y (BLAS: y is then not an input). alpha and beta are annotated
float32, so the Python floats are rounded as the routine's `const float *` would be.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_n(a_ptr, x_ptr, y_ptr, m, n, lda, stride_a, incx, stride_x, base_x, incy, stride_y,
            base_y, alpha: tl.float32, beta: tl.float32, BETA_ZERO: tl.constexpr,
            BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.program_id(1).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < m
    a_base = a_ptr + b * stride_a
    x_base = x_ptr + b * stride_x + base_x
    acc = tl.zeros([BLOCK_R, BLOCK_K], dtype=tl.float32)
    for k0 in range(0, n, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        kmask = ks < n
        a = tl.load(a_base + rows[:, None] + ks[None, :] * lda,
                    mask=rmask[:, None] & kmask[None, :], other=0.0)
        xv = tl.load(x_base + ks * incx, mask=kmask, other=0.0)
        acc += a * xv[None, :]
    res = alpha * tl.sum(acc, axis=1)
    y_at = y_ptr + b * stride_y + base_y + rows * incy
    if not BETA_ZERO:
        res += beta * tl.load(y_at, mask=rmask, other=0.0)
    tl.store(y_at, res, mask=rmask)


@triton.jit
def _gemv_t(a_ptr, x_ptr, y_ptr, m, n, lda, stride_a, incx, stride_x, base_x, incy, stride_y,
            base_y, alpha: tl.float32, beta: tl.float32, BETA_ZERO: tl.constexpr,
            BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cmask = cols < n
    a_base = a_ptr + b * stride_a
    x_base = x_ptr + b * stride_x + base_x
    acc = tl.zeros([BLOCK_K, BLOCK_R], dtype=tl.float32)
    for k0 in range(0, m, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        kmask = ks < m
        a = tl.load(a_base + ks[:, None] + cols[None, :] * lda,
                    mask=kmask[:, None] & cmask[None, :], other=0.0)
        xv = tl.load(x_base + ks * incx, mask=kmask, other=0.0)
        acc += a * xv[:, None]
    res = alpha * tl.sum(acc, axis=0)
    y_at = y_ptr + b * stride_y + base_y + cols * incy
    if not BETA_ZERO:
        res += beta * tl.load(y_at, mask=cmask, other=0.0)
    tl.store(y_at, res, mask=cmask)


def _base(length: int, inc: int) -> int:
    """Where element 0 of a BLAS vector lies: 0, or (length-1)*|inc| for a negative increment."""
    return (length - 1) * -inc if inc < 0 else 0


def _blocks(out_len: int, red_len: int, trans_n: bool, gpu: bool) -> tuple[int, int]:
    """(BLOCK_R outputs, BLOCK_K reduction) per tile; the contiguous dimension gets more."""
    if not gpu:  # the interpreter: few, large tiles
        return min(256, triton.next_power_of_2(out_len)), min(256, triton.next_power_of_2(red_len))
    if trans_n:  # outputs run down the contiguous columns
        r = min(128, max(16, triton.next_power_of_2(out_len)))
        return r, max(16, min(64, 4096 // r))
    k = min(128, max(16, triton.next_power_of_2(red_len)))
    return max(16, min(64, 4096 // k)), k


def cublasSgemvStridedBatched(trans: int, m: int, n: int, alpha: float, A: torch.Tensor,
                              lda: int, strideA: int, x: torch.Tensor, incx: int, stridex: int,
                              beta: float, y: torch.Tensor, incy: int, stridey: int,
                              batchCount: int) -> None:
    if trans not in (0, 1, 2):
        raise ValueError("cublasSgemvStridedBatched: invalid trans")
    if m < 0 or n < 0 or batchCount < 0 or lda < max(1, m) or incx == 0 or incy == 0:
        raise ValueError("cublasSgemvStridedBatched: invalid argument")
    if m == 0 or n == 0 or batchCount == 0:
        return None
    trans_n = trans == 0
    rows, cols = (m, n) if trans_n else (n, m)
    gpu = y.is_cuda
    block_r, block_k = _blocks(rows, cols, trans_n, gpu)
    grid = (batchCount, triton.cdiv(rows, block_r))
    kernel = _gemv_n if trans_n else _gemv_t
    kernel[grid](A, x, y, m, n, lda, strideA, incx, stridex, _base(cols, incx), incy, stridey,
                 _base(rows, incy), alpha, beta, BETA_ZERO=beta == 0, BLOCK_R=block_r,
                 BLOCK_K=block_k, num_warps=4)
    return None
