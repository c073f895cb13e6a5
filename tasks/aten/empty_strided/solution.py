"""Shipped solution for aten::empty_strided: allocation only. The memory is left uninitialized,
so nothing is computed and no kernel runs: the functional form allocates a tensor with exactly
the requested sizes and strides (default dtype float32), the out= form resizes `out` (to
contiguous strides) only when its shape differs from `size`.

The functional form allocates the elements its strides reach as one flat buffer and views it
with them, rather than calling torch.empty_strided: registered as ATen's own empty_strided
kernel (a PyTorch backend), that call would be this function again."""

import torch


def empty_strided(size, stride, *, dtype=None, device=None) -> torch.Tensor:
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided: {len(size)} sizes but {len(stride)} strides")
    if dtype is None:
        dtype = torch.get_default_dtype()
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError("empty_strided: negative sizes and strides are not supported")
    # the highest element any index reaches, plus one (none at all when a size is 0)
    span = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    return torch.empty(span, dtype=dtype, device=device).as_strided(size, stride)


def empty_strided_out(size, stride, *, out: torch.Tensor) -> torch.Tensor:
    size = [int(s) for s in size]
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided: {len(size)} sizes but {len(stride)} strides")
    if list(out.shape) != size:
        out.resize_(size)
    return out
