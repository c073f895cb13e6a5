"""Shipped solution for aten::narrow: pure metadata. The result is a view of `self`'s storage:
the same strides, the size of `dim` replaced by `length`, and the storage offset moved by
`start` steps along `dim`. No element is read or written, so no kernel runs."""

import torch


def _narrow_view(self, dim, start, length):
    nd = self.dim()
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if not -nd <= dim < nd:
        raise IndexError(f"narrow(): dim {dim} out of range for a tensor of {nd} dims")
    dim %= nd
    size = self.size(dim)
    if not -size <= start <= size:
        raise IndexError(f"narrow(): start {start} out of range [{-size}, {size}]")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension "
                           f"size ({size})")
    sizes = list(self.shape)
    sizes[dim] = length
    return self.as_strided(sizes, self.stride(), self.storage_offset() + start * self.stride(dim))


def narrow(self: torch.Tensor, dim: int, start: int, length: int) -> torch.Tensor:
    return _narrow_view(self, dim, int(start), int(length))


def narrow_Tensor(self: torch.Tensor, dim: int, start: torch.Tensor,
                  length: int) -> torch.Tensor:
    if start.dim() != 0 or start.is_floating_point() or start.is_complex():
        raise RuntimeError("narrow(): start must be a 0-dim integral tensor")
    return _narrow_view(self, dim, int(start), int(length))
