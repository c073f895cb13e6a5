# expect: error|crash out of memory
# expect-interpreter: crash memory limit exceeded
# Asks for far more device memory than the GPU has (and than any host has: on the interpreter
# the same request is host memory): the allocator refuses, this candidate fails alone.
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2, mask=mask)


def scale(self: torch.Tensor) -> torch.Tensor:
    x = self.contiguous()
    hoard = torch.empty(1 << 45, dtype=torch.uint8, device=x.device)  # 32 TiB
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    del hoard
    return y
