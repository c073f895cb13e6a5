"""Shipped solution for aten::expand_as: pure metadata, expand(self, other.shape). Sizes are
matched from the last dimension; a dimension that keeps its size keeps its stride, a size-1
dimension stretched to another size gets stride 0, and a new leading dimension gets stride 0
when its size is not 1 (a new size-1 dimension gets the extent of the dimension after it, as
ATen does). No element is read or written, so no kernel runs."""

import torch


def expand_as(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    size = list(other.shape)
    nd, n = self.dim(), len(size)
    if n < nd:
        raise RuntimeError(f"expand_as: other has {n} dimensions, fewer than self ({nd})")
    old_sizes, old_strides = list(self.shape), list(self.stride())
    sizes, strides = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        d = i - (n - nd)
        want = size[i]
        if d >= 0:
            have, stride = old_sizes[d], old_strides[d]
        else:
            have = 1
            stride = sizes[i + 1] * strides[i + 1] if i + 1 < n else 1
        if have != want:
            if have != 1:
                raise RuntimeError(f"expand_as: the expanded size ({want}) must match the "
                                   f"existing size ({have}) at non-singleton dimension {i}")
            stride = 0
        sizes[i], strides[i] = want, stride
    return self.as_strided(sizes, strides, self.storage_offset())
