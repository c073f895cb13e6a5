"""Shipped solution for aten::select_backward: one elementwise kernel over the result.

The result (shape `input_sizes`) is seen as (pre, n, post) around `dim`; an element at position
j == index along `dim` takes grad_output at (pre, post), every other element is zero. grad_output
is read through its own strides (up to four dims; more are read from a contiguous copy), so a
non-contiguous gradient is not copied. The result is written contiguously (into a staging tensor
first when an `out=` tensor is not contiguous).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _select_backward_kernel(g_ptr, out_ptr, total, N, POST, index, G1, G2, G3,
                            gs0, gs1, gs2, gs3, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    post = offs % POST
    t = offs // POST
    j = t % N
    pre = t // N
    g = pre * POST + post
    g3 = g % G3
    g = g // G3
    g2 = g % G2
    g = g // G2
    g1 = g % G1
    g0 = g // G1
    hit = m & (j == index)
    v = tl.load(g_ptr + (g0 * gs0 + g1 * gs1 + g2 * gs2 + g3 * gs3), mask=hit, other=0)
    tl.store(out_ptr + offs, v, mask=m)


def _select_backward_into(grad_output, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    nd = len(sizes)
    if nd == 0:
        raise IndexError("select_backward(): input_sizes must have at least one dim")
    if not -nd <= dim < nd:
        raise IndexError(f"select_backward(): dim {dim} out of range for {nd} dims")
    dim %= nd
    n = sizes[dim]
    if not -n <= index < n:
        raise IndexError(f"select_backward(): index {index} out of range for size {n}")
    index %= n
    gshape = sizes[:dim] + sizes[dim + 1:]
    if list(grad_output.shape) != gshape:
        raise RuntimeError(f"select_backward(): grad_output must have shape {gshape}")
    if out is None:
        out = torch.empty(sizes, dtype=grad_output.dtype, device=grad_output.device)
    elif list(out.shape) != sizes or out.dtype != grad_output.dtype:
        raise RuntimeError(f"select_backward(): out must be {grad_output.dtype} of {sizes}")
    total = out.numel()
    if total == 0:
        return out
    g = grad_output if grad_output.dim() <= 4 else grad_output.contiguous().reshape(-1)
    gsz = [1] * (4 - g.dim()) + list(g.shape)
    gst = [0] * (4 - g.dim()) + [g.stride(d) for d in range(g.dim())]
    post = 1
    for s in sizes[dim + 1:]:
        post *= s
    dst = out if out.is_contiguous() else torch.empty(sizes, dtype=out.dtype, device=out.device)
    block = 4096 if out.device.type != "cpu" else 65536
    block = min(block, triton.next_power_of_2(total))
    grid = (triton.cdiv(total, block),)
    _select_backward_kernel[grid](g, dst, total, n, post, index, gsz[1], gsz[2], gsz[3],
                                  gst[0], gst[1], gst[2], gst[3], BLOCK=block)
    if dst is not out:
        out.copy_(dst)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _select_backward_into(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _select_backward_into(grad_output, input_sizes, dim, index, out)
