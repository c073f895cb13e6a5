"""Reference for aten::item: torch eager. The worker runs it on a float64/complex128 copy of a
floating `self` (the value; the float16/bfloat16/float32 value is exact in float64) and on the
native input (the Python type: float, int, bool or complex)."""

import torch


def item(self: torch.Tensor):
    return self.item()
