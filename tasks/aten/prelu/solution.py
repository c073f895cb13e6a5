"""Shipped solution for aten::prelu: an elementwise kernel, with a row kernel for contiguous input.

Contiguous `self` whose dims after the channel dim hold at least _ROW_MIN elements (images:
[N, C, H, W]) is walked as rows of that many elements, one channel per row: the weight is one
scalar load per program and no element needs index arithmetic (the general kernel's 64-bit
division per dim ran at 1/50 of ATen's speed on [64,256,56,56] on an H200,
bench/results/h200-2026-12-03d). Otherwise each result element (written contiguously) is
found in `self` through its strides (up to five dims; more are read from a contiguous copy);
its channel (position along dim 1, or 0 when the weight is shared) picks the weight. out = x if x > 0 else weight * x, computed in float32 (the
product rounds once to the output dtype), so NaN propagates and 0 * inf gives NaN as in ATen.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _prelu_kernel(x_ptr, w_ptr, out_ptr, total, S1, S2, S3, S4, st0, st1, st2, st3, st4,
                  CH_SIZE, CH_DIV, w_stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    r = offs
    i4 = r % S4
    r = r // S4
    i3 = r % S3
    r = r // S3
    i2 = r % S2
    r = r // S2
    i1 = r % S1
    i0 = r // S1
    x = tl.load(x_ptr + (i0 * st0 + i1 * st1 + i2 * st2 + i3 * st3 + i4 * st4), mask=m, other=0)
    ch = (offs // CH_DIV) % CH_SIZE
    w = tl.load(w_ptr + ch * w_stride, mask=m, other=0)
    xf = x.to(tl.float32)
    y = tl.where(xf > 0, xf, w.to(tl.float32) * xf)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=m)


@triton.jit
def _prelu_rows_kernel(x_ptr, w_ptr, out_ptr, INNER, CH_SIZE, w_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = j < INNER
    w = tl.load(w_ptr + (row % CH_SIZE) * w_stride).to(tl.float32)
    x = tl.load(x_ptr + row * INNER + j, mask=m, other=0).to(tl.float32)
    y = tl.where(x > 0, x, w * x)
    tl.store(out_ptr + row * INNER + j, y.to(out_ptr.dtype.element_ty), mask=m)


# The row kernel's least row length (shorter rows leave most of each program idle), and its
# block on the GPU; grid dim 1 (blocks per row) is limited to 65535 by CUDA.
_ROW_MIN = 256
_ROW_BLOCK = 1024


def prelu(self, weight):
    if weight.dtype != self.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {self.dtype} and "
                           f"{weight.dtype}")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    channels = self.shape[1] if self.dim() >= 2 else 1
    nw = weight.numel()
    if nw != 1 and nw != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {nw} and channel size = {channels}.")
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    total = out.numel()
    if total == 0:
        return out
    x = self if self.dim() <= 5 else self.contiguous()
    if x.dim() > 5:
        sizes, strides = [total], [1]
    else:
        sizes, strides = list(x.shape), [x.stride(d) for d in range(x.dim())]
    pad = 5 - len(sizes)
    sizes, strides = [1] * pad + sizes, [0] * pad + strides
    inner = 1
    for s in self.shape[2:]:
        inner *= s
    w_stride = weight.stride(0) if weight.dim() == 1 else 0
    ch_size = nw
    if self.is_contiguous() and self.dim() >= 2 and inner >= _ROW_MIN:
        rblock = _ROW_BLOCK if self.device.type != "cpu" else triton.next_power_of_2(inner)
        if triton.cdiv(inner, rblock) <= 65535:
            grid = (total // inner, triton.cdiv(inner, rblock))
            _prelu_rows_kernel[grid](self, weight, out, inner, ch_size, w_stride, BLOCK=rblock)
            return out
    block = 4096 if self.device.type != "cpu" else 65536
    block = min(block, triton.next_power_of_2(total))
    grid = (triton.cdiv(total, block),)
    _prelu_kernel[grid](x, weight, out, total, sizes[1], sizes[2], sizes[3], sizes[4],
                        strides[0], strides[1], strides[2], strides[3], strides[4],
                        ch_size, inner, w_stride, BLOCK=block)
    return out
