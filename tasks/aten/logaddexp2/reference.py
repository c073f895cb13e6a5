"""Reference for aten::logaddexp2: torch eager, run by the worker on float64 copies (values) and on
the native inputs (output dtype and the GPU baseline).

logaddexp2(a, b) = log2(2**a + 2**b) elementwise over the broadcast shape, in the promoted
floating dtype (float32 with float16 gives float32). Equal infinities give themselves
(-inf with -inf is -inf), a NaN operand gives NaN. The float64 reference is exact for the
(rounded) inputs; one evaluation per element with no reduction, so the plain elementwise
tolerance applies. Results can be near zero only when max(a, b) is in [-1, 0], where the
absolute error of a float32 evaluation (a few 1e-8) stays far below the atol floor.
"""

import torch


def logaddexp2(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.logaddexp2.default(self, other)


def logaddexp2_out(self: torch.Tensor, other: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.logaddexp2.out(self, other, out=out)
