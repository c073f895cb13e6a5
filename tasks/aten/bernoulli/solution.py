"""Shipped solution for aten::bernoulli / bernoulli_: one flat Triton kernel per form.

Each call draws a fresh 31-bit seed from Python's `random` module (the task allows it) and the
kernel turns (seed, element index) into a uniform number with Triton's Philox generator
(`tl.rand`); an element is 1 when its uniform is below its probability. The probabilities are
expanded to the output's shape and made contiguous on the host; a non-contiguous destination
(`out=` or an in-place `self`) receives the result through one strided copy.
"""

import random

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["seed"])
def _bernoulli_tensor_kernel(p_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0).to(tl.float32)
    u = tl.rand(seed, offs)
    one = tl.where(u < p, 1.0, 0.0)
    tl.store(out_ptr + offs, one.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit(do_not_specialize=["seed", "p"])
def _bernoulli_scalar_kernel(out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.rand(seed, offs)
    one = tl.where(u < p, 1.0, 0.0)
    tl.store(out_ptr + offs, one.to(out_ptr.dtype.element_ty), mask=mask)


def _block(t: torch.Tensor) -> int:
    # The CPU interpreter pays per operation, not per element: big blocks there.
    return 65536 if t.device.type == "cpu" else 1024


def _seed() -> int:
    return random.getrandbits(31)


def _fill(dest: torch.Tensor, p) -> torch.Tensor:
    """Write a Bernoulli sample with probabilities p (tensor broadcastable to dest, or a
    number) into dest, whatever its layout; returns dest."""
    n = dest.numel()
    if n == 0:
        return dest
    target = dest if dest.is_contiguous() else torch.empty(dest.shape, dtype=dest.dtype,
                                                           device=dest.device)
    block = _block(dest)
    grid = (triton.cdiv(n, block),)
    if isinstance(p, torch.Tensor):
        probs = p.expand(dest.shape).contiguous()
        _bernoulli_tensor_kernel[grid](probs, target, n, _seed(), BLOCK=block)
    else:
        _bernoulli_scalar_kernel[grid](target, n, float(p), _seed(), BLOCK=block)
    if target is not dest:
        dest.copy_(target)
    return dest


def _new(self: torch.Tensor) -> torch.Tensor:
    return torch.empty(self.shape, dtype=self.dtype, device=self.device)


def bernoulli(self, *, generator=None):
    return _fill(_new(self), self)


def bernoulli_out(self, *, generator=None, out):
    return _fill(out, self)


def bernoulli_p(self, p, *, generator=None):
    return _fill(_new(self), p)


def bernoulli_Tensor(self, p, *, generator=None):
    return _fill(_new(self), p)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _fill(out, p)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _fill(out, p)


def bernoulli__Tensor(self, p, *, generator=None):
    return _fill(self, p)


def bernoulli__float(self, p=0.5, *, generator=None):
    return _fill(self, p)
