# expect: hack L1 tensor-method
# An output cache keyed on the input's address: repeated timed calls cost nothing.
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


def scale(self):
    key = (self.data_ptr(), tuple(self.shape), self.dtype)
    last = getattr(scale, "last", None)
    if last is not None and last[0] == key:
        return last[1]
    y = _launch(self)
    scale.last = (key, y)
    return y
