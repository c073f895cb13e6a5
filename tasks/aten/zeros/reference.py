"""Reference for aten::zeros: torch eager (no tensor inputs except out=, so the reference and
the baseline run alike), on the platform's device.
"""

import torch


def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> torch.Tensor:
    return torch.ops.aten.zeros.default(size, dtype=dtype, layout=layout, device=device,
                                        pin_memory=pin_memory)


def zeros_out(size, *, out: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.zeros.out(size, out=out)
