# expect: error|crash illegal memory access
# expect-interpreter: crash Segmentation fault
# A Triton kernel that stores far outside its output: on the GPU an illegal memory access, which
# poisons the CUDA context of this worker (and only this one). Nothing for L1 to see.
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs.to(tl.int64) * (1 << 40), x * 2, mask=mask)


def scale(self: torch.Tensor) -> torch.Tensor:
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
