"""Reference for aten::new_empty_strided: torch eager (the ATen op through torch.ops.aten),
run on the native arguments only (an alloc task: the output's values are uninitialized; its
type, shape, dtype, device and strides are what the candidate must match). The result takes
`self`'s dtype (unless `dtype` is given) and device. The out= overload resizes `out` to `size`
(contiguous) when its shape differs, keeps it (and its strides) when the shape already matches,
and returns it; `self` only serves as the prototype and is not modified."""

import torch


def new_empty_strided(self: torch.Tensor, size: list[int], stride: list[int], *,
                      dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.ops.aten.new_empty_strided.default(self, size, stride, dtype=dtype)


def new_empty_strided_out(self: torch.Tensor, size: list[int], stride: list[int], *,
                          out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.new_empty_strided.out(self, size, stride, out=out)
