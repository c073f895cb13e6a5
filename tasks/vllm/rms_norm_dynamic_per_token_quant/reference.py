"""Reference for vLLM's rms_norm_dynamic_per_token_quant, int8 output
(torch.ops._C.rms_norm_dynamic_per_token_quant;
csrc/quantization/fused_kernels/fused_layernorm_dynamic_per_token_quant.cu and
layernorm_utils.cuh): our own torch code, run by the worker on the native inputs
(reference_precision "native": the int8 result is exact, so the arithmetic must be one defined
float32 arithmetic, not a float64 approximation of it).

The op fuses an RMS normalisation (optionally after a residual add) with dynamic per-token int8
quantization. input is [..., hidden_size]; every index of the leading dimensions is a token, a
row of H = hidden_size values. Per row, with x the input row converted to float32:

- residual given: x = x + residual row (float32), and residual is overwritten with x rounded to
  the input dtype;
- ss = sum of x^2 (float32); rms = 1 / sqrt(ss / H + epsilon), each operation one correctly
  rounded float32 operation (epsilon first rounded to float32);
- y = dt(dt(x * rms) * weight), where dt() rounds to the input dtype (the normalised value is
  rounded before the weight, and the product in the input dtype is rounded again: vLLM's
  scalar_t arithmetic);
- scale[row] = max(absmax(y) / 127, FLT_EPSILON), float32, written to scale ([num_tokens, 1]);
- result = sat8(round(y * (1 / scale[row]))), round half to even, saturated to [-128, 127].

scale_ub must be None (vLLM rejects it for int8 output). The fp8 output of the op is not
covered: the task format has no fp8 dtype.

vLLM computes rms with rsqrtf (an approximation of a few ulp) and sums the squares in its own
thread order; a rounding of either can move a value across an int8 step, so no exact int8
comparison could hold against it. The task therefore fixes the arithmetic: correctly rounded
sqrt and division, and cases whose input and residual are small integers (|x| <= 128 after the
residual add, H * max x^2 < 2^24), so that the sum of squares is exact in float32 in any order.
The weight is normal.

Tolerance: int8 result exact; scale and residual compared with float32's tolerance (out_dtype
float32); both come out exact from this arithmetic.
"""

import torch

_FLT_EPSILON = float(torch.finfo(torch.float32).eps)


def _full(like: torch.Tensor, v: float) -> torch.Tensor:
    # Tensor operands: a tensor-by-number division may be done as a multiplication by the
    # reciprocal (CUDA), which rounds twice.
    return torch.full_like(like, v, dtype=torch.float32)


def rms_norm_dynamic_per_token_quant(result: torch.Tensor, input: torch.Tensor,
                                     weight: torch.Tensor, scale: torch.Tensor, epsilon: float,
                                     scale_ub: torch.Tensor | None,
                                     residual: torch.Tensor | None) -> None:
    if result.dtype != torch.int8:
        raise NotImplementedError("only the int8 output is covered (no fp8 dtype)")
    if scale_ub is not None:
        raise ValueError("scale_ub is only accepted with an fp8 output")
    dt = input.dtype
    H = input.shape[-1]
    x = input.reshape(-1, H).to(torch.float32)
    if residual is not None:
        x = x + residual.reshape(-1, H).to(torch.float32)
        residual.copy_(x.to(dt).reshape(residual.shape))
    ss = (x * x).sum(dim=-1, keepdim=True)
    var = torch.div(ss, _full(ss, H)) + _full(ss, epsilon)
    # sqrt in float64, rounded once to float32: correctly rounded (torch's vectorised float32
    # sqrt on the CPU is not: 702 of 4096 random values one ulp off, measured with torch 2.13).
    rms = torch.div(_full(var, 1.0), torch.sqrt(var.to(torch.float64)).to(torch.float32))
    normed = (x * rms).to(dt).to(torch.float32)
    y = (normed * weight.to(torch.float32)).to(dt).to(torch.float32)
    absmax = y.abs().amax(dim=-1, keepdim=True)
    s = torch.clamp_min(torch.div(absmax, _full(absmax, 127.0)), _FLT_EPSILON)
    inv = torch.div(_full(s, 1.0), s)
    q = torch.round(y * inv).clamp(-128, 127).to(torch.int8)
    scale.copy_(s.reshape(scale.shape))
    result.copy_(q.reshape(result.shape))
