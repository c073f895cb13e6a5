"""cuBLAS through ctypes: the speedup baseline of the cuBLAS tasks (their baseline.py files).

docs/tasks-cublas.md fixes the convention. The library is the one torch itself loaded (read
from /proc/self/maps once torch has created its own cuBLAS handle), so the baseline is the
platform's cuBLAS of the very build that runs, never a path written here. One handle per
process, created on first use; every call first points it at torch's current stream, so the
timing events bracket the routine, and sets the pointer mode the call needs.

`call(name, *args)` converts each argument by its Python type: a torch.Tensor passes its
data_ptr(); a list of tensors becomes a device array of their data_ptr()s (the
`const T *const Aarray[]` of the batched routines; built on every call, as a candidate given
the same list must); a plain int is a C `int`, or `int64_t` for the `_64` routines; anything
ctypes already made (an enum as `enum(v)`, a `long long` as `i64(v)`, a scalar from `scalar()`)
passes as it is. A status
other than CUBLAS_STATUS_SUCCESS raises RuntimeError naming the routine and the status.
"""

from __future__ import annotations

import ctypes
from typing import Any, cast

import numpy
import torch

_STATUS = {1: "NOT_INITIALIZED", 3: "ALLOC_FAILED", 7: "INVALID_VALUE", 8: "ARCH_MISMATCH",
           11: "MAPPING_ERROR", 13: "EXECUTION_FAILED", 14: "INTERNAL_ERROR",
           15: "NOT_SUPPORTED", 16: "LICENSE_ERROR"}

POINTER_MODE_HOST, POINTER_MODE_DEVICE = 0, 1


class _Complex64(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class _Complex128(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


_lib: ctypes.CDLL | None = None
_handle = ctypes.c_void_p()


def library_path() -> str:
    """The libcublas shared object this process has loaded (torch's), after making torch load it."""
    torch.cuda.current_blas_handle()  # torch creates its handle: libcublas is now mapped
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.rstrip("\n").split(maxsplit=5)[-1]
            name = path.rsplit("/", 1)[-1]
            if name.startswith("libcublas.so"):
                return path
    raise RuntimeError("torch loaded no libcublas.so* into this process (is it a CUDA build?)")


def _library() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(library_path())
        _check(lib.cublasCreate_v2(ctypes.byref(_handle)), "cublasCreate_v2")
        _lib = lib
    return _lib


def _check(status: int, name: str) -> None:
    if status != 0:
        raise RuntimeError(f"{name}: CUBLAS_STATUS_{_STATUS.get(status, status)}")


def enum(value: int) -> ctypes.c_int:
    """A cuBLAS enum argument (cublasOperation_t, cublasFillMode_t, cudaDataType, ...)."""
    return ctypes.c_int(int(value))


def i64(value: int) -> ctypes.c_int64:
    """A `long long` argument of a routine that is not `_64` (strideA of the strided-batched
    routines): a plain int would be passed as a 32-bit int, whose upper half is then garbage."""
    return ctypes.c_int64(int(value))


def scalar(precision: str, value: complex | float) -> Any:
    """A host-mode scalar (alpha, beta) of precision S, D, C, Z or H, passed by reference."""
    # S, D and H take a real value (a Python complex raises TypeError in ctypes and numpy); the
    # cast only tells mypy so.
    real = cast(float, value)
    if precision == "S":
        obj: Any = ctypes.c_float(real)
    elif precision == "D":
        obj = ctypes.c_double(real)
    elif precision == "C":
        obj = _Complex64(complex(value).real, complex(value).imag)
    elif precision == "Z":
        obj = _Complex128(complex(value).real, complex(value).imag)
    elif precision == "H":  # __half: the bits of the float16 rounding
        obj = ctypes.c_uint16(int(numpy.float16(real).view(numpy.uint16)))
    else:
        raise ValueError(f"scalar: unknown precision '{precision}'")
    return ctypes.byref(obj)


def _convert(arg: Any, int_type: type) -> Any:
    if isinstance(arg, torch.Tensor):
        return ctypes.c_void_p(arg.data_ptr())
    if isinstance(arg, (list, tuple)):
        table = torch.tensor([t.data_ptr() for t in arg], dtype=torch.int64)
        return _Table(table.to(arg[0].device if arg else "cuda", non_blocking=False))
    if isinstance(arg, bool) or not isinstance(arg, int):
        return arg
    return int_type(arg)


class _Table:
    """A device array of pointers, kept alive until the call returns."""

    def __init__(self, table: torch.Tensor) -> None:
        self.table = table
        self._as_parameter_ = ctypes.c_void_p(table.data_ptr())


def call(name: str, *args: Any, pointer_mode: int = POINTER_MODE_HOST) -> None:
    """cuBLAS routine `name` with the process's handle on torch's current stream."""
    lib = _library()
    stream = torch.cuda.current_stream().cuda_stream
    _check(lib.cublasSetStream_v2(_handle, ctypes.c_void_p(stream)), "cublasSetStream_v2")
    _check(lib.cublasSetPointerMode_v2(_handle, ctypes.c_int(pointer_mode)),
           "cublasSetPointerMode_v2")
    int_type = ctypes.c_int64 if name.endswith("_64") else ctypes.c_int
    converted = [_convert(a, int_type) for a in args]
    _check(getattr(lib, name)(_handle, *converted), name)


def call_result(name: str, dtype: torch.dtype, *args: Any) -> torch.Tensor:
    """A routine that returns a value through its last pointer (dot, asum, nrm2): called in
    device pointer mode into a 0-d tensor of `dtype`, so nothing waits for the GPU."""
    result = torch.empty((), dtype=dtype, device="cuda")
    call(name, *args, result, pointer_mode=POINTER_MODE_DEVICE)
    return result
