"""Shipped solution for aten::arange: the length on the host, the values in one kernel.

The host resolves the dtype (int64 for integer arguments, the default float dtype otherwise),
computes n = ceil((end - start) / step) in double precision as ATen does, allocates the result
and launches one kernel over i in [0, n) that stores start + i * step through the result's
stride: in 64-bit integers for integer dtypes, in float32 for float16/bfloat16/float32 results
(CUDA's accumulation type), and in float64 for float64 results, whose start and step travel as
their IEEE bit patterns (Triton would narrow a Python float argument to float32). bfloat16
results go through float32, the only conversion to bfloat16 the CPU interpreter gets right.
"""

import math
import struct

import torch
import triton
import triton.language as tl


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU 4096
    # elements per program keeps the stores wide and the grid short.
    return 65536 if t.device.type == "cpu" else 4096


_FLOAT64 = 2
_FLOAT32 = 1
_INTEGER = 0


@triton.jit(do_not_specialize=["start", "step"])
def _arange_kernel(out_ptr, start, step, n, stride, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if MODE == 2:
        # the bit patterns may have arrived as int32 (small values): widen, then reinterpret
        a = start.to(tl.int64).to(tl.float64, bitcast=True)
        b = step.to(tl.int64).to(tl.float64, bitcast=True)
        v = a + b * offs.to(tl.float64)
    elif MODE == 1:
        v = start + step * offs.to(tl.float32)
    else:
        v = start + step * offs
    if out_ptr.dtype.element_ty == tl.bfloat16:
        v = v.to(tl.float32)
    tl.store(out_ptr + offs * stride, v.to(out_ptr.dtype.element_ty), mask=mask)


def _result_dtype(start, end, step) -> torch.dtype:
    if all(isinstance(v, int) for v in (start, end, step)):
        return torch.int64
    return torch.get_default_dtype()


def _length(start, end, step) -> int:
    return max(0, math.ceil((end - start) / step))


def _write(out: torch.Tensor, start, step) -> torch.Tensor:
    n = out.numel()
    if n == 0:
        return out
    if out.dtype == torch.float64:
        mode = _FLOAT64
        a = struct.unpack("<q", struct.pack("<d", float(start)))[0]
        b = struct.unpack("<q", struct.pack("<d", float(step)))[0]
    elif out.dtype.is_floating_point:
        mode, a, b = _FLOAT32, float(start), float(step)
    else:
        mode, a, b = _INTEGER, int(start), int(step)
    block = _block(out)
    _arange_kernel[(triton.cdiv(n, block),)](out, a, b, n, out.stride(0), MODE=mode, BLOCK=block,
                                             num_warps=4)
    return out


def _arange(start, end, step, dtype, device) -> torch.Tensor:
    dtype = _result_dtype(start, end, step) if dtype is None else dtype
    out = torch.empty(_length(start, end, step), dtype=dtype, device=device)
    return _write(out, start, step)


def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None) -> torch.Tensor:
    return _arange(0, end, 1, dtype, device)


def arange_start(start, end, *, dtype=None, layout=None, device=None,
                 pin_memory=None) -> torch.Tensor:
    return _arange(start, end, 1, dtype, device)


def arange_start_step(start, end, step=1, *, dtype=None, layout=None, device=None,
                      pin_memory=None) -> torch.Tensor:
    return _arange(start, end, step, dtype, device)


def arange_start_out(start, end, step=1, *, out: torch.Tensor) -> torch.Tensor:
    return _write(out, start, step)


def arange_out(end, *, out: torch.Tensor) -> torch.Tensor:
    return _write(out, 0, 1)
