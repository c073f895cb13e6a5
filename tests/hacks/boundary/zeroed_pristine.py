# expect: fail
# Altering the pristine data: every tensor the candidate's process holds (the inputs, their
# pristine copies and, in the one-process worker, the reference's outputs) zeroed, and zeros
# returned, so that "reference" and answer agree. Against the one-process worker this passed.
# The runner holds only its own copies; the judge's inputs and reference are in another process.
import gc
import sys

import torch


def scale(self: torch.Tensor) -> torch.Tensor:
    n = 0
    for o in gc.get_objects():
        if isinstance(o, torch.Tensor) and o.is_floating_point() and o.numel():
            try:
                o.zero_()
                n += 1
            except RuntimeError:
                pass
    self.zero_()
    print(f"boundary attack ran: zeroed {n} tensors", file=sys.stderr)
    return torch.zeros_like(self)
