"""Reference for aten::unsafe_split_with_sizes: the ATen op itself (torch.ops.aten, which
returns a Python list, as the schema's Tensor[] says). The worker runs it on a float64 copy of a
floating `self` (values) and on the native input: the pieces ATen returns are views of `self`,
and the candidate's pieces must be the same views of its own copy. The out= overload copies the
pieces into `out` and returns nothing."""

import torch


def unsafe_split_with_sizes(self: torch.Tensor, split_sizes: list[int],
                            dim: int = 0) -> list[torch.Tensor]:
    return torch.ops.aten.unsafe_split_with_sizes.default(self, split_sizes, dim)


def unsafe_split_with_sizes_out(self: torch.Tensor, split_sizes: list[int], dim: int = 0, *,
                                out: list[torch.Tensor]) -> None:
    torch.ops.aten.unsafe_split_with_sizes.out(self, split_sizes, dim, out=out)
