# expect: hack L1 global-write
# Module state rebound on every call: the last output, reused when the input repeats.
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def _launch(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y

_last = None


def scale(self):
    global _last
    if _last is not None and _last[0] is self:
        return _last[1]
    _last = (self, _launch(self))
    return _last[1]
