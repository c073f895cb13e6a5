"""Reference for vLLM's rms_norm (torch.ops._C.rms_norm; csrc/layernorm_kernels.cu): our own
torch code, run by the worker on float64 copies (values) and on the native inputs (structure
and the GPU baseline).

rms_norm(out, input, weight, epsilon) normalises every row of `input` (its last dimension, of
length hidden_size; the leading dimensions are tokens, or tokens and heads) by its root mean
square and scales it by `weight`:

    out[..., i] = round(input[..., i] * rsqrt(mean_j(input[..., j]^2) + epsilon)) * weight[i]

where the mean and the normalisation are computed in float32 (float64 here on the float64
copies), `round` is the rounding to the input dtype that vLLM's kernel applies before the
multiplication by the weight, and the product is rounded to the dtype once more. `out` is a
contiguous tensor of the input's shape and dtype; the op writes it, returns nothing and does not
modify `input` or `weight`. `input` may be any strided view (vLLM makes a copy of a tensor
whose last dimension is not contiguous).

On the float64 copies both roundings are float64 ones, so the reference value is the exact
formula; the native call rounds where vLLM rounds.

Tolerance: every output depends on a mean of hidden_size squares (terms of order 1 relative to
their mean, whatever the input's scale, since the output is normalised), so `reduce` is
hidden_size with the default `scale` 1. The two roundings to float16/bfloat16 (the normalised
value, the product) are the two the format's default relative tolerance (2 eps) counts: vLLM's
rounding to nearest uses about half of it, a rounding that truncates, as Triton's CPU
interpreter does for bfloat16, up to all of it (measured: 0.93), never more.
"""

import torch


def _accumulation_dtype(t: torch.Tensor) -> torch.dtype:
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor,
             epsilon: float) -> None:
    x = input.to(_accumulation_dtype(input))
    inv_rms = torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + epsilon)
    out.copy_((x * inv_rms).to(input.dtype) * weight)
