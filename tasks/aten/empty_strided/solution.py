"""Shipped solution for aten::empty_strided: allocation only. The memory is left uninitialized,
so nothing is computed and no kernel runs: the functional form allocates a tensor with exactly
the requested sizes and strides (default dtype float32), the out= form resizes `out` (to
contiguous strides) only when its shape differs from `size`."""

import torch


def empty_strided(size, stride, *, dtype=None, device=None) -> torch.Tensor:
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided: {len(size)} sizes but {len(stride)} strides")
    if dtype is None:
        dtype = torch.get_default_dtype()
    return torch.empty_strided(size, stride, dtype=dtype, device=device)


def empty_strided_out(size, stride, *, out: torch.Tensor) -> torch.Tensor:
    size = [int(s) for s in size]
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided: {len(size)} sizes but {len(stride)} strides")
    if list(out.shape) != size:
        out.resize_(size)
    return out
