"""Reference for vLLM's hadacore_transform (torch.ops._C.hadacore_transform;
csrc/quantization/hadamard/hadacore/hadamard_transform_cuda.cu, hadacore_transform and
run_fht): our own torch code, run by the worker on float64 copies (values) and on the native
inputs (structure and the GPU baseline).

hadacore_transform(x, inplace) applies the normalised Walsh-Hadamard transform to every vector
along the last dimension of x. With n = x.size(-1), a power of two from 2 to 32768, and H_n the
Sylvester Hadamard matrix, H_n[i, j] = (-1) ** popcount(i & j) (symmetric, so H_n.T = H_n):

    y[..., i] = (1 / sqrt(n)) * sum over j of H_n[i, j] * x[..., j]

The transform is orthogonal and its own inverse. With inplace true the result is written into x
(every element) and x is returned; with inplace false x is left unchanged and a new tensor of
x's shape and dtype holding the result is returned.

The reference builds the transform as log2(n) butterfly stages (pairs (a, b) at distance
1, 2, 4, ... replaced by (a + b, a - b)), which is the Sylvester product, in the working precision
(float64 on the copies) and scales once at the end; the result is rounded to x's dtype once.

Tolerance: every output is a sum of n terms of the magnitude of x divided by sqrt(n), so
`reduce` is n and `scale` the case's standard deviation of x.
"""

import math

import torch


def _fwht(v: torch.Tensor) -> torch.Tensor:
    n = v.shape[-1]
    rows = v.reshape(-1, n)
    h = 1
    while h < n:
        pairs = rows.reshape(-1, n // (2 * h), 2, h)
        a, b = pairs[:, :, 0, :], pairs[:, :, 1, :]
        rows = torch.stack((a + b, a - b), dim=2).reshape(-1, n)
        h *= 2
    return (rows * (1.0 / math.sqrt(n))).reshape(v.shape)


def hadacore_transform(x: torch.Tensor, inplace: bool) -> torch.Tensor:
    n = x.shape[-1]
    if n < 1 or n & (n - 1) or n > 1 << 15:
        raise ValueError(f"hadacore_transform: the last dimension must be a power of two up to "
                         f"32768, got {n}")
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    y = _fwht(x.to(acc)).to(x.dtype)
    if inplace:
        x.copy_(y)
        return x
    return y
