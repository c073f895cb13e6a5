"""Shipped solution for aten::unsqueeze: pure metadata. A size-1 dimension is inserted at
position `dim` (wrapped over self.dim() + 1 positions); its stride is the extent of the
dimension it is placed before (size * stride), or 1 when it becomes the last dimension. The
storage offset is kept. No element is read or written, so no kernel runs."""

import torch


def unsqueeze(self: torch.Tensor, dim: int) -> torch.Tensor:
    nd = self.dim()
    if not -(nd + 1) <= dim <= nd:
        raise IndexError(f"unsqueeze(): dim {dim} out of range [{-(nd + 1)}, {nd}]")
    dim %= nd + 1
    sizes, strides = list(self.shape), list(self.stride())
    new_stride = 1 if dim == nd else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return self.as_strided(sizes, strides, self.storage_offset())
