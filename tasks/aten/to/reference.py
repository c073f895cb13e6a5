"""Reference for aten::to: torch eager, run by the worker on float64 copies of floating inputs
(values) and on the native inputs (output dtype, aliasing and the GPU baseline).

When nothing changes (same dtype and device, copy=False) ATen returns self itself; otherwise it
returns the conversion of _to_copy (rounding to nearest, truncation toward zero for float -> int,
x != 0 for bool). The float64 run gives the unrounded values, which the tolerance of the output
dtype admits; on a float64 copy the dtype=None cases return that float64 copy, whose values
round back to self's dtype exactly.
"""

import torch

_to = torch.ops.aten.to


def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):
    return _to.dtype(self, dtype, non_blocking, copy, memory_format)


def to_device(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    return _to.device(self, device, dtype, non_blocking, copy, memory_format)


def to_other(self, other, non_blocking=False, copy=False, memory_format=None):
    return _to.other(self, other, non_blocking, copy, memory_format)


def to_dtype_layout(self, *, dtype=None, layout=None, device=None, pin_memory=None,
                    non_blocking=False, copy=False, memory_format=None):
    return _to.dtype_layout(self, dtype=dtype, layout=layout, device=device,
                            pin_memory=pin_memory, non_blocking=non_blocking, copy=copy,
                            memory_format=memory_format)


def to_prim_Device(self, device, dtype=None, non_blocking=False, copy=False):
    return _to.prim_Device(self, device, dtype, non_blocking, copy)


def to_prim_dtype(self, dtype=None, non_blocking=False, copy=False):
    return _to.prim_dtype(self, dtype, non_blocking, copy)


def to_prim_other(self, non_blocking=False, copy=False):
    return _to.prim_other(self, non_blocking, copy)
