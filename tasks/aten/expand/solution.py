"""Shipped solution for aten::expand: pure metadata. Sizes are matched from the last dimension;
a dimension that keeps its size keeps its stride, a size-1 dimension stretched to another size
gets stride 0, and a new leading dimension gets stride 0 when its size is not 1 (a new size-1
dimension gets the extent of the dimension after it, as ATen does). No element is read or
written, so no kernel runs."""

import torch


def expand(self: torch.Tensor, size, *, implicit: bool = False) -> torch.Tensor:
    size = [int(s) for s in size]
    nd, n = self.dim(), len(size)
    if n < nd:
        raise RuntimeError(f"expand: the number of sizes provided ({n}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({nd})")
    old_sizes, old_strides = list(self.shape), list(self.stride())
    sizes, strides = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        d = i - (n - nd)  # the matching dimension of self, negative for a new leading one
        want = size[i]
        if d >= 0:
            have, stride = old_sizes[d], old_strides[d]
            if want == -1:
                want = have
        else:
            if want < 0:
                raise RuntimeError("expand: -1 is not allowed in a leading, non-existing "
                                   "dimension")
            have = 1
            stride = sizes[i + 1] * strides[i + 1] if i + 1 < n else 1
        if have != want:
            if have != 1:
                raise RuntimeError(f"expand: the expanded size ({want}) must match the existing "
                                   f"size ({have}) at non-singleton dimension {i}")
            stride = 0
        sizes[i], strides[i] = want, stride
    return self.as_strided(sizes, strides, self.storage_offset())
