"""Reference for aten::affine_grid_generator: torch eager, run by the worker on float64 copies
(values) and on the native inputs (output dtype and the GPU baseline).

out[n, h, w, :] = theta[n] @ (x_w, y_h, 1) for a 2-D size (N, C, H, W) and
out[n, d, h, w, :] = theta[n] @ (x_w, y_h, z_d, 1) for a 3-D size (N, C, D, H, W), where the
base-grid coordinates are linspace(-1, 1, S), scaled by (S - 1) / S without align_corners, and 0
for a size-1 dimension.

Tolerance: ATen builds the base grid in the input dtype, so for float16 and bfloat16 its own
result carries one rounding of each coordinate times |theta|, summed over 3 or 4 terms: about
eps(dtype) in absolute terms, far more than the default float32-accumulation allowance where
terms cancel. The entries therefore set `scale` per dtype (the `dt.s` axis) so that
atol is about 5 eps(dtype) for the 16-bit dtypes; float32 keeps scale 1.
"""

import torch


def _cpu_half_fallback(theta, size):
    """ATen cannot build a size-0/1 base-grid dimension in float16/bfloat16 (it makes a CPU
    tensor, and `tensor_cpu` is not implemented for them; on CUDA too, seen on the H200);
    there, compute in float32 and round once."""
    return theta.dtype in (torch.float16, torch.bfloat16) and min(size[2:]) <= 1


def affine_grid_generator(theta: torch.Tensor, size, align_corners: bool) -> torch.Tensor:
    if _cpu_half_fallback(theta, size):
        return torch.ops.aten.affine_grid_generator(theta.float(), size,
                                                    align_corners).to(theta.dtype)
    return torch.ops.aten.affine_grid_generator(theta, size, align_corners)


def affine_grid_generator_out(theta: torch.Tensor, size, align_corners: bool, *,
                              out: torch.Tensor) -> torch.Tensor:
    if _cpu_half_fallback(theta, size):
        out.copy_(torch.ops.aten.affine_grid_generator(theta.float(), size, align_corners))
        return out
    return torch.ops.aten.affine_grid_generator.out(theta, size, align_corners, out=out)
