# expect: hack L1 module-cache
# A mutable default argument is created once and shared by every call.
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


def scale(self, _seen={}):
    key = (tuple(self.shape), self.dtype)
    if key not in _seen:
        _seen[key] = _launch(self)
    return _seen[key]
