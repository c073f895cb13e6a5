"""Reference for vLLM's fused_add_rms_norm (torch.ops._C.fused_add_rms_norm;
csrc/layernorm_kernels.cu): our own torch code, run by the worker on float64 copies (values) and
on the native inputs (structure and the GPU baseline).

fused_add_rms_norm(input, residual, weight, epsilon) is the residual connection of a
transformer layer followed by the next RMSNorm, in place, row by row (the last dimension, of
length hidden_size):

    residual = input + residual                  (rounded to the dtype, stored in `residual`)
    input[..., i] = round(residual[..., i] * rsqrt(mean_j(residual[..., j]^2) + epsilon))
                    * weight[i]

The sum is rounded to the tensors' dtype and the normalisation is computed from that rounded
sum, as vLLM's kernel does; the mean and the normalisation are computed in float32 (float64
here on the float64 copies), the normalised value is rounded to the dtype before the
multiplication by the weight, and the product is rounded once more. Both `input` and
`residual` are written; `weight` is not modified; the op returns nothing.

On the float64 copies the sum and both roundings are float64 ones (the sum of two float16,
bfloat16 or float32 numbers is exact in float64), so the reference values are the exact
formula; the native call rounds where vLLM rounds.

Tolerance: every normalised output depends on a mean of hidden_size squares (terms of order 1
relative to their mean, whatever the scale, since the output is normalised), so `reduce` is
hidden_size with the default `scale` 1. The normalised output goes through three roundings to
float16/bfloat16 (the sum, the normalised value, the product) where the format's default
relative tolerance (2 eps) counts two, so `rtol` is 1.5 times the default (3 eps): vLLM's own
rounding (to nearest) uses up to about three quarters of the default, and a rounding that
truncates, as Triton's CPU interpreter does for bfloat16, more than all of it.
"""

import torch


def _accumulation_dtype(t: torch.Tensor) -> torch.dtype:
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                       epsilon: float) -> None:
    residual.copy_(input + residual)
    x = residual.to(_accumulation_dtype(residual))
    inv_rms = torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + epsilon)
    input.copy_((x * inv_rms).to(input.dtype) * weight)
