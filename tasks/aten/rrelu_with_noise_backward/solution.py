"""Shipped solution for aten::rrelu_with_noise_backward: one elementwise kernel.

training: grad_input = grad_output * noise; otherwise the leaky-ReLU gradient with the fixed
slope (lower + upper) / 2: grad_output where self > 0, grad_output * slope elsewhere. Products
are formed in float32 and rounded once. The three inputs are read through their own strides
(up to four dims; more are read from contiguous copies); the result is written contiguously
(staged when an `out=` tensor is not contiguous).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rrelu_bwd_kernel(g_ptr, x_ptr, n_ptr, out_ptr, total, S1, S2, S3,
                      g0, g1, g2, g3, x0, x1, x2, x3, n0, n1, n2, n3, slope,
                      TRAINING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    r = offs
    i3 = r % S3
    r = r // S3
    i2 = r % S2
    r = r // S2
    i1 = r % S1
    i0 = r // S1
    g = tl.load(g_ptr + (i0 * g0 + i1 * g1 + i2 * g2 + i3 * g3), mask=m, other=0).to(tl.float32)
    if TRAINING:
        nz = tl.load(n_ptr + (i0 * n0 + i1 * n1 + i2 * n2 + i3 * n3), mask=m, other=0)
        y = g * nz.to(tl.float32)
    else:
        x = tl.load(x_ptr + (i0 * x0 + i1 * x1 + i2 * x2 + i3 * x3), mask=m, other=0)
        y = tl.where(x.to(tl.float32) > 0, g, g * slope)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=m)


def _strides4(t, shape):
    if len(shape) > 4:
        t = t.contiguous().reshape(-1)
        return t, [0, 0, 0, 1]
    st = [t.stride(d) for d in range(t.dim())]
    return t, [0] * (4 - len(st)) + st


def _rrelu_bwd_into(grad_output, self, noise, lower, upper, training, self_is_result, out):
    shape = list(grad_output.shape)
    if list(self.shape) != shape or (training and list(noise.shape) != shape):
        raise RuntimeError("rrelu_with_noise_backward(): shapes of the inputs differ")
    slope = (float(lower) + float(upper)) / 2
    if not training and self_is_result and slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a "
                           "negative slope which is not supported.")
    if out is None:
        out = torch.empty(shape, dtype=grad_output.dtype, device=grad_output.device)
    elif list(out.shape) != shape or out.dtype != grad_output.dtype:
        raise RuntimeError("rrelu_with_noise_backward(): out has the wrong shape or dtype")
    total = out.numel()
    if total == 0:
        return out
    sizes = [1] * (4 - len(shape)) + shape if len(shape) <= 4 else [1, 1, 1, total]
    g, gs = _strides4(grad_output, shape)
    x, xs = _strides4(self, shape)
    nz, ns = _strides4(noise, shape) if training else (g, gs)
    dst = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    block = 4096 if out.device.type != "cpu" else 65536
    block = min(block, triton.next_power_of_2(total))
    grid = (triton.cdiv(total, block),)
    _rrelu_bwd_kernel[grid](g, x, nz, dst, total, sizes[1], sizes[2], sizes[3],
                            gs[0], gs[1], gs[2], gs[3], xs[0], xs[1], xs[2], xs[3],
                            ns[0], ns[1], ns[2], ns[3], slope, TRAINING=bool(training),
                            BLOCK=block)
    if dst is not out:
        out.copy_(dst)
    return out


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training,
                              self_is_result):
    return _rrelu_bwd_into(grad_output, self, noise, lower, upper, training, self_is_result,
                           None)


def rrelu_with_noise_backward_out(grad_output, self, noise, lower, upper, training,
                                  self_is_result, *, out):
    return _rrelu_bwd_into(grad_output, self, noise, lower, upper, training, self_is_result,
                           out)
