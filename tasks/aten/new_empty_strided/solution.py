"""Shipped solution for aten::new_empty_strided: allocation only. The memory is left
uninitialized, so nothing is computed and no kernel runs: the functional form allocates a
tensor with exactly the requested sizes and strides, with `self`'s dtype (unless `dtype` is
given) on `self`'s device; the out= form resizes `out` (to contiguous strides) only when its
shape differs from `size`."""

import torch


def new_empty_strided(self: torch.Tensor, size, stride, *, dtype=None) -> torch.Tensor:
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"new_empty_strided: {len(size)} sizes but {len(stride)} strides")
    return torch.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                               device=self.device)


def new_empty_strided_out(self: torch.Tensor, size, stride, *, out: torch.Tensor) -> torch.Tensor:
    size = [int(s) for s in size]
    if len(size) != len(stride):
        raise RuntimeError(f"new_empty_strided: {len(size)} sizes but {len(stride)} strides")
    if list(out.shape) != size:
        out.resize_(size)
    return out
