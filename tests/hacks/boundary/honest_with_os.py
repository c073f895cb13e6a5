# expect: pass
# The control: an honest kernel under the same task allowances (os, sys, gc past L1): what the
# attacks above do is what fails them, not the allowances.
import os  # noqa: F401
import sys  # noqa: F401

import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def scale(self: torch.Tensor) -> torch.Tensor:
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
