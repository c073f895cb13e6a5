# expect: hack L1 private-attr
# dataclasses is an allowed import, and its private helper _create_fn exec()s the source text it
# is given (dataclasses builds __init__ that way): any Python at all, __import__ included. Here
# torch computes the product through a name L1 never sees. With this rule allowed away it
# passed kgb eval on the interpreter, 20 of 20 cases: L2 sees no hack, since the poisoned
# torch.full operand makes the replayed answer wrong.
import dataclasses

import torch


def scale(self: torch.Tensor) -> torch.Tensor:
    body = ["return __import__('torch').einsum('...,->...', x, two)"]
    twice = dataclasses._create_fn("twice", ("x", "two"), body, globals={})
    return twice(self, torch.full((), 2, dtype=self.dtype, device=self.device))
