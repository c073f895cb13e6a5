"""Shipped solution for aten::affine_grid_generator: one elementwise kernel over the grid.

Every output element (n, d, h, w, i) is the affine map of its base-grid point: the normalised
coordinates x(w), y(h), z(d) in [-1, 1] are computed in float32 from integers, (2*k + 1 - S) / S
without align_corners and (2*k + 1 - S) / (S - 1) with it (0 for a size-1 dimension), and
combined with row i of theta[n] in float32, then rounded once to the output dtype. A 2-D grid is
the 3-D one with D = 1 and no z term. theta and the output are addressed through their strides.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _coord(k, S, ALIGN: tl.constexpr):
    num = (2 * k + 1 - S).to(tl.float32)
    if ALIGN:
        den = tl.maximum(S - 1, 1).to(tl.float32)
    else:
        den = S.to(tl.float32)
    return tl.where(S > 1, num / den, 0.0)


# A size of 1 would be specialised into a constant by the GPU compiler, and _coord needs a
# tensor to convert; the sizes are runtime values on every platform.
@triton.jit(do_not_specialize=["D", "H", "W"])
def _affine_grid_kernel(th_ptr, out_ptr, total, D, H, W,
                        s_tn, s_ti, s_tj, s_on, s_od, s_oh, s_ow, s_oi,
                        R: tl.constexpr, ALIGN: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < total
    i = offs % R
    p = offs // R
    w = p % W
    p = p // W
    h = p % H
    p = p // H
    d = p % D
    n = p // D
    x = _coord(w, W, ALIGN)
    y = _coord(h, H, ALIGN)
    row = th_ptr + n * s_tn + i * s_ti
    t0 = tl.load(row, mask=ok, other=0.0).to(tl.float32)
    t1 = tl.load(row + s_tj, mask=ok, other=0.0).to(tl.float32)
    t2 = tl.load(row + 2 * s_tj, mask=ok, other=0.0).to(tl.float32)
    if R == 3:
        z = _coord(d, D, ALIGN)
        t3 = tl.load(row + 3 * s_tj, mask=ok, other=0.0).to(tl.float32)
        v = t0 * x + t1 * y + t2 * z + t3
    else:
        v = t0 * x + t1 * y + t2
    dst = out_ptr + (n * s_on + d * s_od + h * s_oh + w * s_ow + i * s_oi)
    tl.store(dst, v.to(out_ptr.dtype.element_ty), mask=ok)


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _affine_grid_into(theta, size, align_corners, out):
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise RuntimeError("affine_grid_generator: size must have 4 (2-D) or 5 (3-D) entries")
    R = len(size) - 2
    N = size[0]
    if theta.dtype not in _FLOATS:
        raise RuntimeError("affine_grid_generator: theta must be float16, bfloat16 or float32")
    if tuple(theta.shape) != (N, R, R + 1):
        raise RuntimeError(f"affine_grid_generator: theta must have shape {(N, R, R + 1)}")
    spatial = size[2:]
    shape = [N] + spatial + [R]
    if out is None:
        out = torch.empty(shape, dtype=theta.dtype, device=theta.device)
    elif list(out.shape) != shape or out.dtype != theta.dtype:
        raise RuntimeError(f"affine_grid_generator: out must be {theta.dtype} of shape {shape}")
    total = out.numel()
    if total == 0:
        return out
    if R == 2:
        D, (H, W) = 1, spatial
        s_on, s_od, s_oh, s_ow, s_oi = out.stride(0), 0, out.stride(1), out.stride(2), out.stride(3)
    else:
        D, H, W = spatial
        s_on, s_od, s_oh, s_ow, s_oi = (out.stride(0), out.stride(1), out.stride(2),
                                        out.stride(3), out.stride(4))
    block = 1024 if theta.device.type != "cpu" else 65536
    grid = (triton.cdiv(total, block),)
    _affine_grid_kernel[grid](theta, out, total, D, H, W,
                              theta.stride(0), theta.stride(1), theta.stride(2),
                              s_on, s_od, s_oh, s_ow, s_oi,
                              R=R, ALIGN=bool(align_corners), BLOCK=block, num_warps=4)
    return out


def affine_grid_generator(theta: torch.Tensor, size, align_corners: bool) -> torch.Tensor:
    return _affine_grid_into(theta, size, align_corners, None)


def affine_grid_generator_out(theta: torch.Tensor, size, align_corners: bool, *,
                              out: torch.Tensor) -> torch.Tensor:
    return _affine_grid_into(theta, size, align_corners, out)
