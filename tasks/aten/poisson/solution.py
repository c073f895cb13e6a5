"""Shipped solution for aten::poisson: one flat Triton kernel with two exact samplers.

Each call draws a fresh 31-bit seed from Python's `random` module (the task allows it); the
kernel makes uniforms from (seed, element index) with Triton's Philox generator (`tl.rand`).

- rate < 10: inversion by sequential search, k = the first k with u < P(X <= k), the CDF
  accumulated term by term (p_k = p_{k-1} * rate / k), at most 40 terms.
- rate >= 10: Hormann's transformed rejection with squeeze (PTRS): ten rounds with fresh
  uniforms, two rounds from one Philox call (`tl.rand4x`); a round accepts about 9 times in
  10; log k! from Stirling's series after shifting the argument up by 6.

Each sampler runs only when its block holds a rate of its range.

The rates are made contiguous on the host; a non-contiguous `out` receives the sample through
one strided copy.
"""

import random

import torch
import triton
import triton.language as tl

@triton.jit
def _log_factorial(k):
    # log Gamma(k + 1) = log Gamma(w) - log(z (z+1) ... (z+5)), z = k + 1, w = z + 6
    z = k + 1.0
    w = z + 6.0
    iw = 1.0 / w
    iw2 = iw * iw
    lg = (w - 0.5) * tl.log(w) - w + 0.91893853320467274 \
        + iw * (1.0 / 12.0 - iw2 * (1.0 / 360.0 - iw2 * (1.0 / 1260.0)))
    prod = z * (z + 1.0) * (z + 2.0) * (z + 3.0) * (z + 4.0) * (z + 5.0)
    return lg - tl.log(prod)


@triton.jit(do_not_specialize=["seed"])
def _poisson_kernel(rate_ptr, out_ptr, n, seed, INV_TERMS: tl.constexpr,
                    ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    lam = tl.load(rate_ptr + offs, mask=mask, other=0).to(tl.float32)
    small = lam < 10.0

    x = tl.zeros_like(lam)

    # inversion for small rates
    if tl.max(small.to(tl.int32), 0) > 0:
        u = tl.rand(seed, offs)
        p = tl.exp(-tl.where(small, lam, 0.0))
        cdf = p
        k_inv = tl.zeros_like(lam)
        for i in range(1, INV_TERMS):
            more = u >= cdf
            k_inv = tl.where(more, k_inv + 1.0, k_inv)
            p = p * lam / i
            cdf = tl.where(more, cdf + p, cdf)
        x = tl.where(small, k_inv, x)

    # PTRS for large rates, two rounds per four uniforms
    if tl.max((~small & mask).to(tl.int32), 0) > 0:
        big_lam = tl.where(small, 10.0, lam)
        slam = tl.sqrt(big_lam)
        loglam = tl.log(big_lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        log_invalpha = tl.log(1.1239 + 1.1328 / (b - 3.4))
        vr = 0.9277 - 3.6224 / (b - 2.0)
        k_big = tl.floor(big_lam)  # kept only if every round rejects (probability < 1e-9)
        done = small
        for r in range(ROUNDS // 2):
            u0, v0, u1, v1 = tl.rand4x(seed + r + 1, offs)
            for half in tl.static_range(2):
                if half == 0:
                    uu = u0 - 0.5
                    v = v0
                else:
                    uu = u1 - 0.5
                    v = v1
                us = 0.5 - tl.abs(uu)
                us_safe = tl.maximum(us, 1e-6)
                k = tl.floor((2.0 * a / us_safe + b) * uu + big_lam + 0.43)
                quick = (us >= 0.07) & (v <= vr)
                reject = (k < 0.0) | ((us < 0.013) & (v > us)) | (us <= 0.0)
                kk = tl.maximum(k, 0.0)
                lhs = tl.log(tl.maximum(v, 1e-30)) + log_invalpha \
                    - tl.log(a / (us_safe * us_safe) + b)
                rhs = -big_lam + kk * loglam - _log_factorial(kk)
                accept = quick | ((~reject) & (lhs <= rhs))
                k_big = tl.where(accept & (~done), kk, k_big)
                done = done | accept
        x = tl.where(small, x, k_big)

    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=mask)


def _sample(rate: torch.Tensor, dest: torch.Tensor) -> torch.Tensor:
    n = dest.numel()
    if n == 0:
        return dest
    target = dest if dest.is_contiguous() else torch.empty(dest.shape, dtype=dest.dtype,
                                                           device=dest.device)
    lam = rate.expand(dest.shape).contiguous()
    block = 65536 if dest.device.type == "cpu" else 512
    _poisson_kernel[(triton.cdiv(n, block),)](lam, target, n, random.getrandbits(30),
                                              INV_TERMS=40, ROUNDS=10, BLOCK=block)
    if target is not dest:
        dest.copy_(target)
    return dest


def poisson(self, generator=None):
    return _sample(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def poisson_out(self, generator=None, *, out):
    return _sample(self, out)
