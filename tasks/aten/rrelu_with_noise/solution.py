"""Shipped solution for aten::rrelu_with_noise: flat Triton kernels over contiguous buffers.

Training: each call draws a fresh 31-bit seed from Python's `random` module (the task allows
it); the kernel makes a uniform u per element with Triton's Philox generator (`tl.rand`), the
slope r = lower + (upper - lower) u is rounded to noise's dtype, and output = self * r where
self <= 0 (noise = r), output = self elsewhere (noise = 1). Not training: output =
leaky_relu(self, (lower + upper) / 2), noise untouched. Products are computed in float32
(float64 for float64). lower, width and the slope travel in a float64 tensor, not as scalar
arguments: Triton passes a Python float as float32, which is not exact enough for float64
(seen on the H200). Non-contiguous inputs are read from contiguous copies; non-contiguous
results reach their tensors through one strided copy.
"""

import random

import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["seed"])
def _rrelu_train_kernel(x_ptr, noise_ptr, out_ptr, n, param_ptr, seed,
                        IS_F64: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xv = tl.load(x_ptr + offs, mask=mask, other=0)
    if IS_F64:
        xa = xv.to(tl.float64)
        lower = tl.load(param_ptr)
        width = tl.load(param_ptr + 1)
    else:
        xa = xv.to(tl.float32)
        lower = tl.load(param_ptr).to(tl.float32)
        width = tl.load(param_ptr + 1).to(tl.float32)
    u = tl.rand(seed, offs)
    r = (lower + width * u).to(noise_ptr.dtype.element_ty).to(xa.dtype)
    neg = xa <= 0
    tl.store(noise_ptr + offs, tl.where(neg, r, 1.0).to(noise_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + offs, tl.where(neg, xa * r, xa).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _leaky_kernel(x_ptr, out_ptr, n, param_ptr, IS_F64: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xv = tl.load(x_ptr + offs, mask=mask, other=0)
    if IS_F64:
        xa = xv.to(tl.float64)
        slope = tl.load(param_ptr)
    else:
        xa = xv.to(tl.float32)
        slope = tl.load(param_ptr).to(tl.float32)
    tl.store(out_ptr + offs, tl.where(xa > 0, xa, xa * slope).to(out_ptr.dtype.element_ty),
             mask=mask)


def _run(self, noise, lower, upper, training, out):
    n = self.numel()
    if n == 0:
        return out
    x = self.contiguous()
    target = out if out.is_contiguous() else torch.empty(self.shape, dtype=out.dtype,
                                                         device=out.device)
    block = 65536 if self.device.type == "cpu" else 1024
    grid = (triton.cdiv(n, block),)
    is64 = self.dtype == torch.float64
    if training:
        nz = noise if noise.is_contiguous() else torch.empty(noise.shape, dtype=noise.dtype,
                                                             device=noise.device)
        param = torch.tensor([float(lower), float(upper) - float(lower)], dtype=torch.float64,
                             device=self.device)
        _rrelu_train_kernel[grid](x, nz, target, n, param, random.getrandbits(31),
                                  IS_F64=is64, BLOCK=block)
        if nz is not noise:
            noise.copy_(nz)
    else:
        param = torch.tensor([(float(lower) + float(upper)) / 2], dtype=torch.float64,
                             device=self.device)
        _leaky_kernel[grid](x, target, n, param, IS_F64=is64, BLOCK=block)
    if target is not out:
        out.copy_(target)
    return out


def rrelu_with_noise(self, noise, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    return _run(self, noise, lower, upper, training, out)


def rrelu_with_noise_out(self, noise, lower=0.125, upper=1.0 / 3.0, training=False,
                         generator=None, *, out):
    return _run(self, noise, lower, upper, training, out)
