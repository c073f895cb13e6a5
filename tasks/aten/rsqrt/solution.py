"""Shipped solution for aten::rsqrt (rsqrt, rsqrt.out, rsqrt_): one streaming Triton kernel.

Every entry reduces to "read x through its strides, write 1/sqrt(x) through the output's
strides". When input and output share strides and cover a gap-free block of storage
(contiguous, dense transposed or offset tensors, a fresh result allocated like the input, an
in-place op on a dense tensor) the kernel walks storage linearly. Otherwise the host sorts the
dimensions by the output's strides, merges those that both tensors walk as one, and the kernel
turns the linear index into both addresses.

The value is computed in float32 (integer inputs are converted first) as a correctly rounded
square root followed by a correctly rounded division, so it is within about one float32 ulp
and follows IEEE for the special values: negative -> NaN, +0 -> inf, -0 -> -inf, inf -> 0.
"""

import torch
import triton
import triton.language as tl

_DIMS = 6  # dimensions the strided kernel addresses after merging


@triton.jit
def _rsqrt_f32(x):
    return tl.div_rn(1.0, tl.sqrt_rn(x))


@triton.jit
def _rsqrt_kernel(
    x_ptr, y_ptr, n,
    z1, z2, z3, z4, z5,
    xs0, xs1, xs2, xs3, xs4, xs5,
    ys0, ys1, ys2, ys3, ys4, ys5,
    NDIM: tl.constexpr, BLOCK: tl.constexpr,
):
    # NDIM == 0: x and y share one dense layout, walk storage linearly. Otherwise the NDIM real
    # dimensions sit in slots 6-NDIM..5 (slot 5 innermost, z_k the size of slot k) and the linear
    # index is split into coordinates from the innermost slot outwards.
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = idx < n
    if NDIM == 0:
        src = idx
        dst = idx
    else:
        rest = idx
        if NDIM >= 2:
            q = rest // z5
            i = rest - q * z5
            src = i * xs5
            dst = i * ys5
            rest = q
        else:
            src = rest * xs5
            dst = rest * ys5
        if NDIM >= 3:
            q = rest // z4
            i = rest - q * z4
            src += i * xs4
            dst += i * ys4
            rest = q
        elif NDIM == 2:
            src += rest * xs4
            dst += rest * ys4
        if NDIM >= 4:
            q = rest // z3
            i = rest - q * z3
            src += i * xs3
            dst += i * ys3
            rest = q
        elif NDIM == 3:
            src += rest * xs3
            dst += rest * ys3
        if NDIM >= 5:
            q = rest // z2
            i = rest - q * z2
            src += i * xs2
            dst += i * ys2
            rest = q
        elif NDIM == 4:
            src += rest * xs2
            dst += rest * ys2
        if NDIM == 6:
            q = rest // z1
            i = rest - q * z1
            src += i * xs1 + q * xs0
            dst += i * ys1 + q * ys0
        elif NDIM == 5:
            src += rest * xs1
            dst += rest * ys1
    x = tl.load(x_ptr + src, mask=live).to(tl.float32)
    tl.store(y_ptr + dst, _rsqrt_f32(x).to(y_ptr.dtype.element_ty), mask=live)


def _gap_free(t: torch.Tensor) -> bool:
    """Whether the elements of t occupy one block of storage, each exactly once."""
    need = 1
    for stride, size in sorted((t.stride(d), t.size(d)) for d in range(t.dim()) if t.size(d) > 1):
        if stride != need:
            return False
        need *= size
    return True


def _merged_dims(shape, xs, ys):
    """(size, x stride, y stride) per dimension, outermost first in the output's order, with
    size-1 dimensions dropped and neighbours that both tensors walk as one merged."""
    dims = sorted(((n, a, b) for n, a, b in zip(shape, xs, ys) if n != 1),
                  key=lambda d: (d[2], d[1]), reverse=True)
    out = []
    for n, a, b in dims:
        if out and out[-1][1] == a * n and out[-1][2] == b * n:
            out[-1] = (out[-1][0] * n, a, b)
        else:
            out.append((n, a, b))
    return out


def _config(t: torch.Tensor):
    # A GPU gets 2048 elements per program, 8 per thread with 8 warps: one or two 16-byte
    # accesses per thread, and few enough live values that the float64 and polynomial
    # temporaries stay in registers. The CPU interpreter pays per program, so it gets few large
    # ones.
    return (1 << 17, 4) if t.device.type == "cpu" else (2048, 8)


def _launch(x: torch.Tensor, y: torch.Tensor) -> None:
    """y[...] = rsqrt(x[...]) elementwise; x and y have the same shape (y may be x itself)."""
    n = y.numel()
    if n == 0:
        return
    block, warps = _config(y)
    grid = (triton.cdiv(n, block),)
    if x.stride() == y.stride() and _gap_free(y):
        _rsqrt_kernel[grid](
            x, y, n, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            NDIM=0, BLOCK=block, num_warps=warps)
        return
    dims = _merged_dims(y.shape, x.stride(), y.stride())
    if len(dims) > _DIMS:  # rare: split the outermost dimension
        for k in range(y.shape[0]):
            _launch(x.select(0, k), y.select(0, k))
        return
    ndim = len(dims)
    dims = [(1, 0, 0)] * (_DIMS - ndim) + dims
    _rsqrt_kernel[grid](
        x, y, n, *[d[0] for d in dims[1:]], *[d[1] for d in dims], *[d[2] for d in dims],
        NDIM=ndim, BLOCK=block, num_warps=warps)


def _result_dtype(t: torch.Tensor) -> torch.dtype:
    # floating inputs keep their dtype; integer and bool inputs give the default float dtype
    return t.dtype if t.dtype.is_floating_point else torch.get_default_dtype()


def rsqrt(self: torch.Tensor) -> torch.Tensor:
    dtype = _result_dtype(self)
    if _gap_free(self):
        out = torch.empty_like(self, dtype=dtype)  # same strides: the flat path
    else:
        out = torch.empty(self.shape, dtype=dtype, device=self.device)
    _launch(self, out)
    return out


def rsqrt_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    if not out.dtype.is_floating_point:
        raise RuntimeError(f"rsqrt.out: result type {_result_dtype(self)} can't be cast to "
                           f"the desired output type {out.dtype}")
    if out.shape != self.shape:
        out.resize_(self.shape)
    _launch(self, out)
    return out


def rsqrt_(self: torch.Tensor) -> torch.Tensor:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"rsqrt_: result type {_result_dtype(self)} can't be cast to "
                           f"the desired output type {self.dtype}")
    _launch(self, self)
    return self
