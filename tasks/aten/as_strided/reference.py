"""Reference for aten::as_strided: torch eager. The worker runs it on a float64 copy of a
floating `self` (values) and on the native input (the view ATen returns: its size, stride and
storage offset are what the candidate's output must match, on the candidate's own copy of
`self`). The worker's copies keep `self`'s storage layout (offset and gaps included), so the
same size/stride/offset address the same values in every copy."""

import torch


def as_strided(self: torch.Tensor, size: list[int], stride: list[int],
               storage_offset: int | None = None) -> torch.Tensor:
    return torch.as_strided(self, size, stride, storage_offset)
