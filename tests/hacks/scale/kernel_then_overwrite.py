# expect: hack L2 ghost
# The kernel writes the output, then a torch copy overwrites it with a torch result: the timing
# and a launch counter both see Triton work, the values are torch's.
import torch
import triton
import triton.language as tl


@triton.jit
def _fill(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


def scale(self):
    y = torch.empty_like(self)
    if y.numel():
        _fill[(triton.cdiv(y.numel(), 256),)](y, y.numel(), BLOCK=256)
    y.copy_(self + self)
    return y
