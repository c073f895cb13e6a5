# expect: mismatch
# Precision downgrade: float32 inputs are computed in float16 inside the kernel (half the
# bytes to move on the GPU); float32's tolerance does not cover float16's rounding.
import torch
import triton
import triton.language as tl


@triton.jit
def _scale16(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float16)
    tl.store(y_ptr + offs, (x * 2).to(y_ptr.dtype.element_ty), mask=mask)


def scale(self):
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale16[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
