# expect: mismatch heldout
# Shape overfitting: the kernel only covers the first 4096 elements (the largest size a prompt's
# examples show) and leaves the rest unwritten: it passes every case of the prompt's grid, and only
# the held-out shapes (kgb eval --heldout) catch it.
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def scale(self):
    x = self.contiguous()
    y = torch.zeros_like(x)
    n = min(x.numel(), 4096)
    if n:
        _scale[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    return y
