"""Shipped solution for aten::zero_ (in place): store zero bits through self's own strides.

Every supported dtype has zero as its all-zero bit pattern (+0.0 for floats, 0 for integers,
False for bool, 0+0j for complex), so self is reinterpreted (a view, no copy) as the signed
integer type of the same width and the kernel stores integer zeros: one kernel for every dtype,
including those Triton has no type for (complex). self is never read.

A dense self (contiguous, transposed, or at an offset: its elements fill a gap-free block of
storage) is zeroed as one linear run of storage. Other layouts merge the dimensions that are
contiguous with their neighbour and address the elements through the strides; a stride-0
(expanded) dimension simply writes the same location again.
"""

import torch
import triton
import triton.language as tl

_MAX_RANK = 6
_INT_OF_WIDTH = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@triton.jit
def _flat_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty), mask=offs < n)


@triton.jit
def _strided_kernel(x_ptr, n, z0, z1, z2, z3, z4, a0, a1, a2, a3, a4, a5,
                    NDIM: tl.constexpr, BLOCK: tl.constexpr):
    # Dims are given innermost first: sizes z0.. and strides a0..; the outermost dim (index
    # NDIM - 1) needs no size. Only the NDIM dims in use cost a division.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r = offs
    a_off = tl.zeros_like(offs)
    if NDIM > 1:
        a_off += (r % z0) * a0
        r = r // z0
    if NDIM > 2:
        a_off += (r % z1) * a1
        r = r // z1
    if NDIM > 3:
        a_off += (r % z2) * a2
        r = r // z2
    if NDIM > 4:
        a_off += (r % z3) * a3
        r = r // z3
    if NDIM > 5:
        a_off += (r % z4) * a4
        r = r // z4
    a_off += r * a5
    tl.store(x_ptr + a_off, tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty), mask=mask)


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU 8192
    # elements per program (32 per thread with 8 warps) keeps stores wide and the grid short.
    return 65536 if t.device.type == "cpu" else 8192


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


def _zero(x: torch.Tensor) -> None:
    n = x.numel()
    block = _block(x)
    if _is_dense(x):
        # the elements are exactly the n storage slots starting at the lowest-addressed one,
        # which is x's own start (dense views here never have negative strides)
        _flat_kernel[(triton.cdiv(n, block),)](x, n, BLOCK=block, num_warps=8)
        return
    sizes, strides = _merge_dims(x.shape, x.stride())
    if len(sizes) > _MAX_RANK:
        for k in range(x.shape[0]):
            _zero(x.select(0, k))
        return
    nd = len(sizes)
    inner = list(reversed(sizes))[:-1] if nd else []
    zs = inner + [1] * (_MAX_RANK - 1 - len(inner))
    rev = list(reversed(strides))
    st = (rev[:-1] + [0] * (_MAX_RANK - nd) + [rev[-1]]) if rev else [0] * _MAX_RANK
    _strided_kernel[(triton.cdiv(n, block),)](x, n, *zs, *st, NDIM=max(nd, 1), BLOCK=block,
                                              num_warps=4)


def zero_(self: torch.Tensor) -> torch.Tensor:
    if self.numel() == 0:
        return self
    bits = self.view(_INT_OF_WIDTH[self.element_size()])
    _zero(bits.reshape(1) if bits.dim() == 0 else bits)
    return self
