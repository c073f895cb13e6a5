# expect: mismatch rerun
# The kernel adds into its output instead of writing it: right only while torch.empty happens to
# hand out zeroed memory (fresh pages often are). The determinism re-run poisons that memory.
import torch
import triton
import triton.language as tl


@triton.jit
def _acc(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, y + x * 2, mask=mask)


def scale(self):
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _acc[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
