# expect: timeout
# A Triton kernel that never ends (a loop whose exit depends on a value that never changes):
# the GPU is busy until the worker's timeout kills the process, which ends its context.
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    k = tl.program_id(0) * 0
    while k < n + 1:  # n + 1 > 0 and k stays 0: forever; the atomic keeps the loop a side
        tl.atomic_add(y_ptr + offs, x * 0, mask=mask)  # effect the compiler cannot drop
        k = k * 1
    tl.store(y_ptr + offs, x * 2, mask=mask)


def scale(self: torch.Tensor) -> torch.Tensor:
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
