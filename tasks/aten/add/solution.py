"""Shipped solution for aten::add: one flat elementwise Triton kernel.

Broadcasting and non-contiguous inputs are handled on the host by expanding to the output shape
and making the operands contiguous, so the kernel reads two flat arrays; the copy costs bandwidth
only for non-contiguous or broadcast inputs.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + alpha * y).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _add_scalar_kernel(x_ptr, out_ptr, n, value, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + value).to(out_ptr.dtype.element_ty), mask=mask)


_BLOCK = 2048


def add_Tensor(self: torch.Tensor, other: torch.Tensor, *, alpha: float = 1) -> torch.Tensor:
    shape = torch.broadcast_shapes(self.shape, other.shape)
    x = self.expand(shape).contiguous()
    y = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n:
        _add_kernel[(triton.cdiv(n, _BLOCK),)](x, y, out, n, float(alpha), BLOCK=_BLOCK)
    return out


def add_out(self: torch.Tensor, other: torch.Tensor, *, alpha: float = 1,
            out: torch.Tensor) -> torch.Tensor:
    shape = torch.broadcast_shapes(self.shape, other.shape)
    # A contiguous `out` is written by the kernel directly; any other layout gets the result
    # through one strided copy (data movement, no arithmetic).
    target = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    x = self.expand(shape).contiguous()
    y = other.expand(shape).contiguous()
    n = target.numel()
    if n:
        _add_kernel[(triton.cdiv(n, _BLOCK),)](x, y, target, n, float(alpha), BLOCK=_BLOCK)
    if target is not out:
        out.copy_(target)
    return out


def add_Scalar(self: torch.Tensor, other: float, alpha: float = 1) -> torch.Tensor:
    x = self.contiguous()
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n:
        value = float(other) * float(alpha)
        _add_scalar_kernel[(triton.cdiv(n, _BLOCK),)](x, out, n, value, BLOCK=_BLOCK)
    return out
