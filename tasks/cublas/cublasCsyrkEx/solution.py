"""Shipped solution for cublasCsyrkEx (Atype = Ctype = CUDA_C_32F): complex symmetric rank-k
update of the uplo triangle, C = alpha * op(A) op(A)^T + beta * C, in one Triton launch.

The grid covers square BT x BT tiles of C; a tile wholly outside the uplo triangle does nothing,
the others multiply op(A)'s row panels tm and tn (no conjugation: SYRK, not HERK) with four
float32 tl.dot products per k step (input_precision "ieee": no TF32) and store only the
triangle's elements, so the other triangle and the ld gap keep their values. Complex values are
(re, im) float32 pairs (torch.view_as_real). beta == 0 never reads C; alpha == 0 reads no A.
Offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl

_CUDA_C_32F = 4


@triton.jit
def _csyrk_kernel(a_ptr, c_ptr, N, K, s_r, s_c, ldc, alpha_re: tl.float32,
                  alpha_im: tl.float32, beta_re: tl.float32, beta_im: tl.float32,
                  LOWER: tl.constexpr, BETA_ZERO: tl.constexpr, BT: tl.constexpr,
                  BK: tl.constexpr):
    tm = tl.program_id(0)
    tn = tl.program_id(1)
    if LOWER:
        keep = tm >= tn
    else:
        keep = tm <= tn
    if keep:
        rm = (tm * BT + tl.arange(0, BT)).to(tl.int64)
        rn = (tn * BT + tl.arange(0, BT)).to(tl.int64)
        rk = tl.arange(0, BK).to(tl.int64)
        mask_m = rm < N
        mask_n = rn < N
        acc_re = tl.zeros([BT, BT], dtype=tl.float32)
        acc_im = tl.zeros([BT, BT], dtype=tl.float32)
        for k0 in range(0, K, BK):
            ks = k0 + rk
            mk = ks < K
            x_off = 2 * (rm[:, None] * s_r + ks[None, :] * s_c)
            x_msk = mask_m[:, None] & mk[None, :]
            y_off = 2 * (ks[:, None] * s_c + rn[None, :] * s_r)
            y_msk = mk[:, None] & mask_n[None, :]
            xr = tl.load(a_ptr + x_off, mask=x_msk, other=0.0)
            xi = tl.load(a_ptr + x_off + 1, mask=x_msk, other=0.0)
            yr = tl.load(a_ptr + y_off, mask=y_msk, other=0.0)
            yi = tl.load(a_ptr + y_off + 1, mask=y_msk, other=0.0)
            acc_re += tl.dot(xr, yr, input_precision="ieee")
            acc_re -= tl.dot(xi, yi, input_precision="ieee")
            acc_im += tl.dot(xr, yi, input_precision="ieee")
            acc_im += tl.dot(xi, yr, input_precision="ieee")
        if LOWER:
            tri = rm[:, None] >= rn[None, :]
        else:
            tri = rm[:, None] <= rn[None, :]
        c_off = 2 * (rm[:, None] + rn[None, :] * ldc)
        c_msk = mask_m[:, None] & mask_n[None, :] & tri
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


def cublasCsyrkEx(uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc):
    if uplo not in (0, 1) or trans not in (0, 1):
        raise ValueError("cublasCsyrkEx: invalid enum argument")
    if Atype != _CUDA_C_32F or Ctype != _CUDA_C_32F:
        raise ValueError("cublasCsyrkEx: only Atype = Ctype = CUDA_C_32F is supported here")
    if n < 0 or k < 0:
        raise ValueError("cublasCsyrkEx: negative size")
    if n == 0:
        return None
    a_re, a_im = _c64(alpha)
    b_re, b_im = _c64(beta)
    s_r, s_c = (1, lda) if trans == 0 else (lda, 1)
    k_eff = k if (a_re != 0 or a_im != 0) else 0
    if C.is_cuda:
        bt, bk, warps, stages = 64, 32, 4, 3
    else:
        bt, bk, warps, stages = 64, 64, 4, 1
    tiles = triton.cdiv(n, bt)
    _csyrk_kernel[(tiles, tiles)](torch.view_as_real(A), torch.view_as_real(C), n, k_eff, s_r,
                                  s_c, ldc, a_re, a_im, b_re, b_im, LOWER=(uplo == 0),
                                  BETA_ZERO=(b_re == 0 and b_im == 0), BT=bt, BK=bk,
                                  num_warps=warps, num_stages=stages)
    return None
