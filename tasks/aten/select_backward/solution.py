"""Shipped solution for aten::select_backward: a zero fill of the result, then the gradient
written into the selected slice.

The result (shape `input_sizes`) is seen as (pre, n, post) around `dim`; the element at (pre,
index, post) takes grad_output at (pre, post), every other element is zero. Two kernels: the fill
is a plain store with no index arithmetic (the bulk of the bytes; an earlier single kernel that
decoded every result element's position with 64-bit division ran at 1/23 of ATen's speed on an
H200, bench/results/h200-2026-12-03d), and the slice kernel runs over grad_output's elements
only, reading it through its own strides (up to four dims; more are read from a contiguous
copy). The result is written contiguously (into a staging tensor first when an `out=` tensor is
not contiguous).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(out_ptr, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=out_ptr.dtype.element_ty), mask=offs < total)


@triton.jit
def _slice_kernel(g_ptr, out_ptr, gtotal, N, POST, index, G1, G2, G3,
                  gs0, gs1, gs2, gs3, BLOCK: tl.constexpr):
    # k runs over grad_output's elements in (pre, post) order; the result's element is
    # (pre, index, post), contiguous.
    k = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = k < gtotal
    g3 = k % G3
    g = k // G3
    g2 = g % G2
    g = g // G2
    g1 = g % G1
    g0 = g // G1
    v = tl.load(g_ptr + (g0 * gs0 + g1 * gs1 + g2 * gs2 + g3 * gs3), mask=m, other=0)
    post = k % POST
    pre = k // POST
    tl.store(out_ptr + (pre * N + index) * POST + post, v, mask=m)


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
    _zero_kernel[(triton.cdiv(total, block),)](dst, total, BLOCK=block)
    gtotal = total // n
    gblock = min(1024 if out.device.type != "cpu" else 65536, triton.next_power_of_2(gtotal))
    _slice_kernel[(triton.cdiv(gtotal, gblock),)](g, dst, gtotal, n, post, index, gsz[1], gsz[2],
                                                  gsz[3], gst[0], gst[1], gst[2], gst[3],
                                                  BLOCK=gblock)
    if dst is not out:
        out.copy_(dst)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _select_backward_into(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _select_backward_into(grad_output, input_sizes, dim, index, out)
