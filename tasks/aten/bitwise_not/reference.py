"""Reference for aten::bitwise_not: torch eager. The inputs are integer or bool tensors, which the
worker never converts, so the reference and the baseline both run on the native inputs.

bitwise_not flips every bit of each element (two's complement: ~x == -x - 1 for signed integers,
255 - x for uint8) and is the logical NOT for bool. The result has the dtype and shape of `self`
and is compared exactly. bitwise_not.out writes the same values into `out` and returns it.
"""

import torch


def bitwise_not(self: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.bitwise_not.default(self)


def bitwise_not_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.bitwise_not.out(self, out=out)
