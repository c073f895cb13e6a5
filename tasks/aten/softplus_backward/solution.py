"""Shipped solution for aten::softplus_backward: one elementwise Triton kernel.

With z = beta * x, grad_input = grad_output where z > threshold and grad_output * sigmoid(z)
elsewhere; sigmoid is evaluated from e = exp(-|z|), which never overflows: 1 / (1 + e) for
z >= 0 and e / (1 + e) below.

grad_output and self (broadcast as views) and the output are indexed flat when all three are one
dense run; otherwise through up to four merged (size, stride) groups, so transposed, strided and
offset inputs, and a non-contiguous grad_input of the out= form, are accessed in place.
"""

import torch
import triton
import triton.language as tl

_RANK = 4


@triton.jit
def _index(offs, S1, S2, S3):
    i3 = offs % S3
    r = offs // S3
    i2 = r % S2
    r = r // S2
    return r // S1, r % S1, i2, i3


@triton.jit
def _softplus_bwd_kernel(g_ptr, x_ptr, o_ptr, n, beta, threshold, S1, S2, S3,
                         G0, G1, G2, G3, X0, X1, X2, X3, O0, O1, O2, O3,
                         FLAT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if FLAT:
        go = offs
        xo = offs
        oo = offs
    else:
        i0, i1, i2, i3 = _index(offs, S1, S2, S3)
        go = i0 * G0 + i1 * G1 + i2 * G2 + i3 * G3
        xo = i0 * X0 + i1 * X1 + i2 * X2 + i3 * X3
        oo = i0 * O0 + i1 * O1 + i2 * O2 + i3 * O3
    g = tl.load(g_ptr + go, mask=mask).to(tl.float32)
    x = tl.load(x_ptr + xo, mask=mask).to(tl.float32)
    z = x * beta
    e = tl.exp(-tl.abs(z))
    sig = tl.where(z >= 0, 1.0, e) / (1.0 + e)
    # NaN fails z > threshold and stays NaN through sig.
    res = tl.where(z > threshold, g, g * sig)
    tl.store(o_ptr + oo, res.to(o_ptr.dtype.element_ty), mask=mask)


def _plan(shape, tensors):
    """Merged (sizes, strides per tensor) over the non-trivial dims of `shape`."""
    sizes, strides = [], [[] for _ in tensors]
    for d, size in enumerate(shape):
        if size == 1:
            continue
        st = [t.stride(d) for t in tensors]
        if sizes and all(strides[k][-1] == st[k] * size for k in range(len(tensors))):
            sizes[-1] *= size
            for k in range(len(tensors)):
                strides[k][-1] = st[k]
        else:
            sizes.append(size)
            for k in range(len(tensors)):
                strides[k].append(st[k])
    return sizes, strides


def _launch(grad_output, self, beta, threshold, out):
    shape = out.shape
    g, x = grad_output.expand(shape), self.expand(shape)
    n = out.numel()
    if n == 0:
        return out
    dst = out
    sizes, strides = _plan(shape, [g, x, dst])
    if len(sizes) > _RANK:  # rare: more than four dims that do not merge
        g, x = g.contiguous(), x.contiguous()
        if not dst.is_contiguous():
            dst = torch.empty(shape, dtype=out.dtype, device=out.device)
        sizes, strides = _plan(shape, [g, x, dst])
    flat = len(sizes) == 0 or (len(sizes) == 1 and all(s[0] == 1 for s in strides))
    pad = _RANK - len(sizes)
    sizes = [1] * pad + sizes
    st = [v for s in strides for v in [0] * pad + s]
    # The CPU interpreter pays per program instance, so it gets few large blocks; on a GPU,
    # 2048 elements per program (8 per thread with 8 warps) give wide loads and many CTAs.
    block = 65536 if out.device.type == "cpu" else 2048
    _softplus_bwd_kernel[(triton.cdiv(n, block),)](g, x, dst, n, float(beta), float(threshold),
                                                   *sizes[1:], *st, FLAT=flat, BLOCK=block,
                                                   num_warps=8)
    if dst is not out:
        out.copy_(dst)
    return out


def softplus_backward(grad_output: torch.Tensor, self: torch.Tensor, beta,
                      threshold) -> torch.Tensor:
    shape = torch.broadcast_shapes(grad_output.shape, self.shape)
    out = torch.empty(shape, dtype=grad_output.dtype, device=grad_output.device)
    return _launch(grad_output, self, beta, threshold, out)


def softplus_backward_grad_input(grad_output: torch.Tensor, self: torch.Tensor, beta, threshold,
                                 *, grad_input: torch.Tensor) -> torch.Tensor:
    return _launch(grad_output, self, beta, threshold, grad_input)
