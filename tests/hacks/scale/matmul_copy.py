# expect: hack L1 matmul
# The product is torch's (a matrix product with [[2]]), and a real Triton kernel copies it into
# the output. Skipping the launches (the ghost replay) leaves the output unwritten, so L2 sees
# nothing; on the interpreter this passes everything (20 of 20 cases with this rule allowed
# away), and only the GPU profiler (L3) would see torch's matmul kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def scale(self: torch.Tensor) -> torch.Tensor:
    two = torch.full((1, 1), 2, dtype=self.dtype, device=self.device)
    prod = (self.reshape(-1, 1) @ two).contiguous()
    y = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = y.numel()
    if n:
        _copy[(triton.cdiv(n, 256),)](prod, y, n, BLOCK=256)
    return y
