"""Reference for aten::empty_strided: torch eager, run on the native arguments only (an alloc
task: the output's values are uninitialized; its type, shape, dtype, device and strides are
what the candidate must match). The out= overload resizes `out` to `size` (contiguous) when its
shape differs, keeps it (and its strides) when the shape already matches, and returns it."""

import torch


def empty_strided(size: list[int], stride: list[int], *, dtype: torch.dtype | None = None,
                  device: torch.device | None = None) -> torch.Tensor:
    return torch.empty_strided(size, stride, dtype=dtype, device=device)


def empty_strided_out(size: list[int], stride: list[int], *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.empty_strided.out(size, stride, out=out)
