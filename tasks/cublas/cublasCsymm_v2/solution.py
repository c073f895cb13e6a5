"""Shipped solution for cublasCsymm_v2: a complex symmetric matrix product in one Triton launch.

C = alpha * S B + beta * C (side LEFT, S m x m) or alpha * B S + beta * C (side RIGHT, S n x n),
where S is the complex symmetric matrix (S^T = S, no conjugation) whose uplo triangle A stores.
The kernel tiles C and runs a GEMM; a tile of S is read with mirrored addresses: element (i, l)
is A[i + l*lda] when it lies in the stored triangle and A[l + i*lda] otherwise, so the other
triangle is never touched. Complex values are (re, im) float32 pairs (torch.view_as_real); four
float32 tl.dot products (input_precision "ieee": no TF32) per k step. beta == 0 never reads C;
alpha == 0 reads neither A nor B. Offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _csymm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc, alpha_re: tl.float32,
                  alpha_im: tl.float32, beta_re: tl.float32, beta_im: tl.float32,
                  LEFT: tl.constexpr, LOWER: tl.constexpr, BETA_ZERO: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
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
    acc_re = tl.zeros([BM, BN], dtype=tl.float32)
    acc_im = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + rk
        mk = ks < K
        if LEFT:  # left operand S (rows rm, cols ks), right operand B (rows ks, cols rn)
            i = rm[:, None]
            j = ks[None, :]
            if LOWER:
                stored = i >= j
            else:
                stored = i <= j
            x_off = 2 * tl.where(stored, i + j * lda, j + i * lda)
            x_msk = mask_m[:, None] & mk[None, :]
            y_off = 2 * (ks[:, None] + rn[None, :] * ldb)
            y_msk = mk[:, None] & mask_n[None, :]
            xr = tl.load(a_ptr + x_off, mask=x_msk, other=0.0)
            xi = tl.load(a_ptr + x_off + 1, mask=x_msk, other=0.0)
            yr = tl.load(b_ptr + y_off, mask=y_msk, other=0.0)
            yi = tl.load(b_ptr + y_off + 1, mask=y_msk, other=0.0)
        else:  # left operand B (rows rm, cols ks), right operand S (rows ks, cols rn)
            i = ks[:, None]
            j = rn[None, :]
            if LOWER:
                stored = i >= j
            else:
                stored = i <= j
            x_off = 2 * (rm[:, None] + ks[None, :] * ldb)
            x_msk = mask_m[:, None] & mk[None, :]
            y_off = 2 * tl.where(stored, i + j * lda, j + i * lda)
            y_msk = mk[:, None] & mask_n[None, :]
            xr = tl.load(b_ptr + x_off, mask=x_msk, other=0.0)
            xi = tl.load(b_ptr + x_off + 1, mask=x_msk, other=0.0)
            yr = tl.load(a_ptr + y_off, mask=y_msk, other=0.0)
            yi = tl.load(a_ptr + y_off + 1, mask=y_msk, other=0.0)
        acc_re += tl.dot(xr, yr, input_precision="ieee")
        acc_re -= tl.dot(xi, yi, input_precision="ieee")
        acc_im += tl.dot(xr, yi, input_precision="ieee")
        acc_im += tl.dot(xi, yr, input_precision="ieee")
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


def _c64(x):
    """The cuComplex (two floats) cuBLAS receives."""
    x = complex(x)
    return (float(torch.tensor(x.real, dtype=torch.float32)),
            float(torch.tensor(x.imag, dtype=torch.float32)))


def cublasCsymm_v2(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    if side not in (0, 1) or uplo not in (0, 1):
        raise ValueError("cublasCsymm_v2: invalid enum argument")
    if m < 0 or n < 0:
        raise ValueError("cublasCsymm_v2: negative size")
    if m == 0 or n == 0:
        return None
    a_re, a_im = _c64(alpha)
    b_re, b_im = _c64(beta)
    ka = m if side == 0 else n
    k_eff = ka if (a_re != 0 or a_im != 0) else 0
    if C.is_cuda:
        bm, bn, bk, warps, stages = 64, 64, 32, 4, 3
    else:
        bm, bn, bk, warps, stages = 64, 64, 64, 4, 1
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _csymm_kernel[grid](torch.view_as_real(A), torch.view_as_real(B), torch.view_as_real(C),
                        m, n, k_eff, lda, ldb, ldc, a_re, a_im, b_re, b_im, LEFT=(side == 0),
                        LOWER=(uplo == 0), BETA_ZERO=(b_re == 0 and b_im == 0), BM=bm, BN=bn,
                        BK=bk, GROUP=8, num_warps=warps, num_stages=stages)
    return None
