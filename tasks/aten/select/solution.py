"""Shipped solution for aten::select.int: pure metadata. The result is a view of `self`'s
storage without dimension `dim`: the other sizes and strides are kept, and the storage offset
moves by `index` steps along `dim`. No element is read or written, so no kernel runs."""

import torch


def select_int(self: torch.Tensor, dim: int, index: int) -> torch.Tensor:
    nd = self.dim()
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if not -nd <= dim < nd:
        raise IndexError(f"select(): dim {dim} out of range for a tensor of {nd} dims")
    dim %= nd
    size = self.size(dim)
    index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {dim}")
    if index < 0:
        index += size
    sizes = [s for d, s in enumerate(self.shape) if d != dim]
    strides = [s for d, s in enumerate(self.stride()) if d != dim]
    return self.as_strided(sizes, strides, self.storage_offset() + index * self.stride(dim))
