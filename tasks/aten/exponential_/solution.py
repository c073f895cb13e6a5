"""Shipped solution for aten::exponential_: one flat Triton kernel, inverse-CDF sampling.

Each call draws a fresh 31-bit seed from Python's `random` module (the task allows it); the
kernel turns (seed, index of a group of four elements) into four uniforms u in [0, 1) with one
Philox evaluation (`tl.rand4x`: `tl.rand` per element would compute four and keep one, which
made this kernel compute-bound at 0.48x of ATen on the H200) and writes -log(1 - u) / lambd,
the four interleaved back into element order. A non-contiguous `self` receives the sample
through one strided copy.
"""

import random

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["seed", "inv_lambd"])
def _exponential_kernel(out_ptr, n, inv_lambd, seed, BLOCK: tl.constexpr):
    # BLOCK elements per program, BLOCK // 4 Philox groups; group g gives elements 4g..4g+3.
    groups = tl.program_id(0).to(tl.int64) * (BLOCK // 4) + tl.arange(0, BLOCK // 4)
    u0, u1, u2, u3 = tl.rand4x(seed, groups)
    u = tl.interleave(tl.interleave(u0, u2), tl.interleave(u1, u3))
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = -tl.log(1.0 - u) * inv_lambd
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=mask)


def exponential_(self, lambd=1.0, *, generator=None):
    n = self.numel()
    if n == 0:
        return self
    target = self if self.is_contiguous() else torch.empty(self.shape, dtype=self.dtype,
                                                           device=self.device)
    block = 65536 if self.device.type == "cpu" else 2048
    _exponential_kernel[(triton.cdiv(n, block),)](target, n, 1.0 / float(lambd),
                                                  random.getrandbits(31), BLOCK=block)
    if target is not self:
        self.copy_(target)
    return self
