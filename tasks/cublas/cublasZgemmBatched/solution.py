"""Shipped solution for cublasZgemmBatched: every complex product of the batch in one launch.

Aarray, Barray and Carray are Python lists of 1-D complex128 tensors (cuBLAS's arrays of device
pointers). The wrapper builds one int64 table of their addresses per operand; the kernel turns a
loaded address into a float64 pointer and reads the (re, im) pairs at offsets 2*e and 2*e + 1
(the layout torch.view_as_real shows). Grid axis 0 tiles C, axis 1 is the batch index. op(A)
and op(B) are read through (row, column) strides; OP_C also negates the imaginary part. Four
float64 tl.dot products per k step give (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi +
ai br). alpha == 0 reads neither A nor B; beta == 0 never reads C. Offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _zgemm_batched_kernel(a_tab, b_tab, c_tab, M, N, K, s_am, s_ak, s_bk, s_bn, ldc,
                          alpha_re: tl.float64, alpha_im: tl.float64, beta_re: tl.float64,
                          beta_im: tl.float64, CONJ_A: tl.constexpr, CONJ_B: tl.constexpr,
                          BETA_ZERO: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    bat = tl.program_id(1)
    a_ptr = tl.load(a_tab + bat).to(tl.pointer_type(tl.float64))
    b_ptr = tl.load(b_tab + bat).to(tl.pointer_type(tl.float64))
    c_ptr = tl.load(c_tab + bat).to(tl.pointer_type(tl.float64))
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
    acc_re = tl.zeros([BM, BN], dtype=tl.float64)
    acc_im = tl.zeros([BM, BN], dtype=tl.float64)
    for k0 in range(0, K, BK):
        ks = k0 + rk
        mk = ks < K
        a_off = 2 * (rm[:, None] * s_am + ks[None, :] * s_ak)
        a_msk = mask_m[:, None] & mk[None, :]
        b_off = 2 * (ks[:, None] * s_bk + rn[None, :] * s_bn)
        b_msk = mk[:, None] & mask_n[None, :]
        ar = tl.load(a_ptr + a_off, mask=a_msk, other=0.0)
        ai = tl.load(a_ptr + a_off + 1, mask=a_msk, other=0.0)
        br = tl.load(b_ptr + b_off, mask=b_msk, other=0.0)
        bi = tl.load(b_ptr + b_off + 1, mask=b_msk, other=0.0)
        if CONJ_A:
            ai = -ai
        if CONJ_B:
            bi = -bi
        acc_re += tl.dot(ar, br, input_precision="ieee", out_dtype=tl.float64)
        acc_re -= tl.dot(ai, bi, input_precision="ieee", out_dtype=tl.float64)
        acc_im += tl.dot(ar, bi, input_precision="ieee", out_dtype=tl.float64)
        acc_im += tl.dot(ai, br, input_precision="ieee", out_dtype=tl.float64)
    c_off = 2 * (rm[:, None] + rn[None, :] * ldc)
    c_msk = mask_m[:, None] & mask_n[None, :]
    out_re = alpha_re * acc_re - alpha_im * acc_im
    out_im = alpha_re * acc_im + alpha_im * acc_re
    if not BETA_ZERO:
        cr = tl.load(c_ptr + c_off, mask=c_msk, other=0.0)
        ci = tl.load(c_ptr + c_off + 1, mask=c_msk, other=0.0)
        out_re += beta_re * cr - beta_im * ci
        out_im += beta_re * ci + beta_im * cr
    tl.store(c_ptr + c_off, out_re, mask=c_msk)
    tl.store(c_ptr + c_off + 1, out_im, mask=c_msk)


def _table(mats, count, device):
    return torch.tensor([t.data_ptr() for t in mats[:count]], dtype=torch.int64, device=device)


def cublasZgemmBatched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray,
                       ldc, batchCount):
    if transa not in (0, 1, 2) or transb not in (0, 1, 2):
        raise ValueError("cublasZgemmBatched: invalid cublasOperation_t")
    if m < 0 or n < 0 or k < 0 or batchCount < 0:
        raise ValueError("cublasZgemmBatched: negative size")
    if m == 0 or n == 0 or batchCount == 0:
        return None
    dev = Carray[0].device
    alpha, beta = complex(alpha), complex(beta)
    s_am, s_ak = (1, lda) if transa == 0 else (lda, 1)
    s_bk, s_bn = (1, ldb) if transb == 0 else (ldb, 1)
    k_eff = k if alpha != 0 else 0
    if Carray[0].is_cuda:
        bm, bn, bk, warps, stages = 64, 64, 16, 4, 3
    else:
        bm, bn, bk, warps, stages = 64, 64, 64, 4, 1
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batchCount)
    _zgemm_batched_kernel[grid](_table(Aarray, batchCount, dev), _table(Barray, batchCount, dev),
                                _table(Carray, batchCount, dev), m, n, k_eff, s_am, s_ak, s_bk,
                                s_bn, ldc, alpha.real, alpha.imag, beta.real, beta.imag,
                                CONJ_A=(transa == 2), CONJ_B=(transb == 2), BETA_ZERO=(beta == 0),
                                BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps,
                                num_stages=stages)
    return None
