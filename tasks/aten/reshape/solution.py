"""Shipped solution for aten::reshape.

First the strides of the new shape are sought as a view of `self`: the dims of `self` are cut,
from the last, into runs that are laid out as one block (each dim steps exactly over the one
after it; size-1 dims never break a run), and the new shape must be made of groups of dims
that each cover exactly one run; a new dim then strides by the product of the new sizes after
it in its group times the run's innermost stride. If that works the result is that view (no
data moves). Otherwise a Triton kernel copies `self` in row-major order into a new contiguous
tensor: each program decomposes a block of flat output indices into `self`'s coordinates
(up to 6 dims) and gathers through `self`'s strides. bool is copied as uint8.
"""

import torch
import triton
import triton.language as tl

_MAX_DIMS = 6


@triton.jit
def _gather_copy_kernel(src_ptr, dst_ptr, n,
                        s1, s2, s3, s4, s5,
                        t0, t1, t2, t3, t4, t5,
                        BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    rem = offs
    i5 = rem % s5
    rem = rem // s5
    i4 = rem % s4
    rem = rem // s4
    i3 = rem % s3
    rem = rem // s3
    i2 = rem % s2
    rem = rem // s2
    i1 = rem % s1
    i0 = rem // s1
    src = i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5
    v = tl.load(src_ptr + src, mask=mask)
    tl.store(dst_ptr + offs, v, mask=mask)


def _numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def _infer_shape(shape, numel):
    shape = [int(s) for s in shape]
    free = [i for i, s in enumerate(shape) if s == -1]
    if len(free) > 1:
        raise RuntimeError("reshape: only one dimension can be inferred")
    if any(s < -1 for s in shape):
        raise RuntimeError(f"reshape: invalid shape dimension in {shape}")
    known = _numel([s for s in shape if s != -1])
    if free:
        if known == 0:
            raise RuntimeError(f"reshape: cannot reshape a tensor of {numel} elements into shape "
                               f"{shape}: the unspecified dimension size -1 can be any value")
        if numel % known:
            raise RuntimeError(f"reshape: shape {shape} is invalid for input of size {numel}")
        shape[free[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"reshape: shape {shape} is invalid for input of size {numel}")
    return shape


def _view_strides(old_sizes, old_strides, new_sizes):
    """Strides that make `new_sizes` a view of (old_sizes, old_strides), or None."""
    if not old_sizes:
        return [1] * len(new_sizes)
    if _numel(old_sizes) == 0:
        if list(old_sizes) == list(new_sizes):
            return list(old_strides)
        strides, acc = [0] * len(new_sizes), 1
        for i in range(len(new_sizes) - 1, -1, -1):
            strides[i] = acc
            acc *= max(new_sizes[i], 1)
        return strides
    out = [0] * len(new_sizes)
    v = len(new_sizes) - 1
    base = old_strides[-1]  # innermost stride of the run being matched
    run = 1  # elements of the run so far
    got = 1  # elements of the new dims given to this run so far
    for d in range(len(old_sizes) - 1, -1, -1):
        run *= old_sizes[d]
        closes = d == 0 or (old_sizes[d - 1] != 1 and old_strides[d - 1] != run * base)
        if not closes:
            continue
        while v >= 0 and (got < run or new_sizes[v] == 1):
            out[v] = got * base
            got *= new_sizes[v]
            v -= 1
        if got != run:
            return None
        if d > 0:
            base, run, got = old_strides[d - 1], 1, 1
    return out if v == -1 else None


def _copy_contiguous(self, shape):
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    n = self.numel()
    if n == 0:
        return out
    # drop size-1 dims, then pad to _MAX_DIMS at the front
    dims = [(s, st) for s, st in zip(self.shape, self.stride()) if s != 1]
    if len(dims) > _MAX_DIMS:
        raise RuntimeError(f"reshape: more than {_MAX_DIMS} non-trivial dims")
    dims = [(1, 0)] * (_MAX_DIMS - len(dims)) + dims
    sizes = [s for s, _ in dims]
    strides = [st for _, st in dims]
    src, dst = self, out
    if self.dtype == torch.bool:
        src, dst = self.view(torch.uint8), out.view(torch.uint8)
    block = 1024
    grid = (triton.cdiv(n, block),)
    _gather_copy_kernel[grid](src, dst, n, sizes[1], sizes[2], sizes[3], sizes[4], sizes[5],
                              strides[0], strides[1], strides[2], strides[3], strides[4],
                              strides[5], BLOCK=block)
    return out


def reshape(self: torch.Tensor, shape) -> torch.Tensor:
    shape = _infer_shape(shape, self.numel())
    strides = _view_strides(list(self.shape), list(self.stride()), shape)
    if strides is not None:
        return self.as_strided(shape, strides, self.storage_offset())
    return _copy_contiguous(self, shape)
