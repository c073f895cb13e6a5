"""Shipped solution for aten::exponential_: one flat Triton kernel, inverse-CDF sampling.

Each call draws a fresh 31-bit seed from Python's `random` module (the task allows it); the
kernel turns (seed, element index) into a uniform u in [0, 1) with Triton's Philox generator
(`tl.rand`) and writes -log(1 - u) / lambd. A non-contiguous `self` receives the sample through
one strided copy.
"""

import random

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["seed", "inv_lambd"])
def _exponential_kernel(out_ptr, n, inv_lambd, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.rand(seed, offs)
    x = -tl.log(1.0 - u) * inv_lambd
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=mask)


def exponential_(self, lambd=1.0, *, generator=None):
    n = self.numel()
    if n == 0:
        return self
    target = self if self.is_contiguous() else torch.empty(self.shape, dtype=self.dtype,
                                                           device=self.device)
    block = 65536 if self.device.type == "cpu" else 1024
    _exponential_kernel[(triton.cdiv(n, block),)](target, n, 1.0 / float(lambd),
                                                  random.getrandbits(31), BLOCK=block)
    if target is not self:
        self.copy_(target)
    return self
