"""Reference for aten::resolve_conj: torch eager. The worker runs it on a float64/complex128
copy of a floating `self` (values) and on the native input; both copies keep the lazy conjugate
bit of the complex64 cases built with one ("bit": "conj"). Without the bit ATen returns `self`
itself (a view: same storage, size, stride and offset), which the candidate must match on its
own copy of `self`; with it, a new tensor holding the conjugated values, bit clear."""

import torch


def resolve_conj(self: torch.Tensor) -> torch.Tensor:
    return torch.resolve_conj(self)
