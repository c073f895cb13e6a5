"""Shipped solution for aten::sin: flat and strided elementwise Triton kernels.

A dense input (contiguous, transposed, or at an offset) is processed as one linear run of its
storage and the output copies its strides. Other layouts merge the dimensions that are contiguous
with their neighbour and address the input through its strides, writing a contiguous output.
"""

import torch
import triton
import triton.language as tl

_MAX_RANK = 6


@triton.jit
def _sin(x):
    return tl.sin(x)


@triton.jit
def _sin_flat_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, _sin(x).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sin_strided_kernel(x_ptr, out_ptr, n, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5,
                        BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    src = (r % s5) * t5
    r = r // s5
    src += (r % s4) * t4
    r = r // s4
    src += (r % s3) * t3
    r = r // s3
    src += (r % s2) * t2
    r = r // s2
    src += (r % s1) * t1
    src += (r // s1) * t0
    x = tl.load(x_ptr + src, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, _sin(x).to(out_ptr.dtype.element_ty), mask=mask)


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU 2048
    # elements per program (16 per thread with 4 warps) gives wide vector loads and many CTAs.
    return 65536 if t.device.type == "cpu" else 2048


def _is_dense(t: torch.Tensor) -> bool:
    """Whether t covers a gap-free block of storage (any dimension order, no overlap)."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _merge_dims(shape, strides):
    """Drop size-1 dims and merge neighbours that are contiguous with each other."""
    sizes, merged = [], []
    for size, stride in zip(shape, strides):
        if size == 1:
            continue
        if sizes and merged[-1] == size * stride:
            sizes[-1] *= size
            merged[-1] = stride
        else:
            sizes.append(size)
            merged.append(stride)
    return sizes, merged


def sin(self: torch.Tensor) -> torch.Tensor:
    if _is_dense(self):
        out = torch.empty_like(self)  # same (dense) strides as the input
        n = out.numel()
        if n:
            block = _block(out)
            _sin_flat_kernel[(triton.cdiv(n, block),)](self, out, n, BLOCK=block)
        return out
    x = self
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    if n == 0:
        return out
    sizes, strides = _merge_dims(x.shape, x.stride())
    if len(sizes) > _MAX_RANK:
        x = x.contiguous()
        sizes, strides = _merge_dims(x.shape, x.stride())
    pad = _MAX_RANK - len(sizes)
    sizes, strides = [1] * pad + sizes, [0] * pad + strides
    block = _block(out)
    _sin_strided_kernel[(triton.cdiv(n, block),)](x, out, n, *sizes[1:], *strides, BLOCK=block)
    return out
