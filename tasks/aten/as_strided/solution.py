"""Shipped solution for aten::as_strided: pure metadata. The result is a view of the storage
under `self` with the given sizes and strides, starting at `storage_offset` elements from the
start of the storage (or at self's own offset when it is None). No element is read or written,
so no kernel runs."""

import torch


def as_strided(self: torch.Tensor, size, stride, storage_offset=None) -> torch.Tensor:
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"as_strided: mismatch in length of strides and shape ({len(size)} "
                           f"sizes, {len(stride)} strides)")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError("as_strided: negative sizes and strides are not supported")
    offset = self.storage_offset() if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"as_strided: negative storage offset {offset}")
    return self.as_strided(size, stride, offset)
