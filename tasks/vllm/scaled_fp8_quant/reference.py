"""Reference for vLLM's fp8 activation quantization: the three custom ops that
vllm._custom_ops.scaled_fp8_quant dispatches to (torch.ops._C.static_scaled_fp8_quant,
dynamic_scaled_fp8_quant, dynamic_per_token_scaled_fp8_quant; there is no
_C.scaled_fp8_quant). Kernels in csrc/quantization/w8a8/fp8/common.cu (formerly
csrc/quantization/fp8/common.cu), conversion in common.cuh (scaled_fp8_conversion),
minimum scale in csrc/quantization/utils.cuh. Our own torch code.

Every op maps each element x of `input` (converted to float32) to float8_e4m3fn:

    result = fp8(clamp(x <op> scale, -448, 448))

where fp8() rounds to the nearest float8_e4m3fn value, ties to even (the hardware
conversion with saturation to finite values; the clamp comes first, so every value is
finite), and 448 is the largest finite float8_e4m3fn value.

- static_scaled_fp8_quant: `scale` is one given float32 number; vLLM computes
  inv = 1 / scale once and multiplies: x * inv.
- dynamic_scaled_fp8_quant (one scale for the whole tensor): scale = max|x| / 448 over
  every element, written to `scale` ([1]); then x * (1 / scale) as in the static op. No
  lower bound on the scale (an all-zero input would give 0 * inf = NaN in vLLM; the cases
  have none).
- dynamic_per_token_scaled_fp8_quant (one scale per token, a row of the last dimension):
  m = max|x| over the row, m = min(m, scale_ub) when scale_ub is given,
  scale[t] = max(m / 448, 1 / (448 * 512)), written to `scale` ([num_tokens, 1]); then
  x / scale[t] (a division here, not a multiplication by the reciprocal: the kernel's
  comment says "for exact match with FBGemm"; the older csrc/quantization/fp8/common.cu
  multiplied by 1 / scale[t] here too).

Division and reciprocal-multiplication differ in the last float32 bit for some inputs; that
moves a value across an fp8 rounding midpoint only when it lies within one float32 ulp of one,
and the comparison allows one fp8 ulp. The reference runs on float64 copies of the inputs and
rounds to float8 itself (torch's CPU conversion rounds to nearest even), so its values are the
exact quantization of the float64 quotient.

Tolerance: one tolerance per entry, that of float8_e4m3fn (rtol 2^-3, atol 2^-9), applies to
the written float32 scales as well; the cases draw inputs large enough (scales well above
2^-9 / 2^-3) that a scale is judged within 12.5 %, and any error in it that changes the
quantized values by more than an ulp fails through `result`.
"""

import torch

FP8_MAX = 448.0
# min_scaling_factor<c10::Float8_e4m3fn>: 1.0f / (448.0f * 512.0f), a float32 value.
MIN_SCALE = float(torch.tensor(1.0 / (FP8_MAX * 512.0), dtype=torch.float32))


def _work(input: torch.Tensor) -> torch.dtype:
    # float64 when the worker runs the reference on float64 copies, float32 otherwise.
    return torch.float64 if input.dtype == torch.float64 else torch.float32


def _rows(input: torch.Tensor) -> torch.Tensor:
    return input.reshape(-1, input.shape[-1]).to(_work(input))


def _store_fp8(result: torch.Tensor, q: torch.Tensor) -> None:
    """Saturate to the finite range, round to float8_e4m3fn (nearest, ties to even), write."""
    f8 = q.clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    result.copy_(f8.reshape(result.shape))


def static_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor,
                            scale: torch.Tensor) -> None:
    if scale.numel() != 1:
        raise ValueError("only a per-tensor scale ([1]) is covered")
    x = _rows(input)
    inv = 1.0 / scale.reshape(()).to(x.dtype)
    _store_fp8(result, x * inv)


def dynamic_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor,
                             scale: torch.Tensor) -> None:
    x = _rows(input)
    s = x.abs().amax() / FP8_MAX
    scale.copy_(s.reshape(scale.shape))
    _store_fp8(result, x * (1.0 / s))


def dynamic_per_token_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor,
                                       scale: torch.Tensor,
                                       scale_ub: torch.Tensor | None) -> None:
    x = _rows(input)
    m = x.abs().amax(dim=-1, keepdim=True)
    if scale_ub is not None:
        m = torch.minimum(m, scale_ub.reshape(()).to(x.dtype))
    s = torch.clamp_min(m / FP8_MAX, MIN_SCALE)
    scale.copy_(s.reshape(scale.shape))
    _store_fp8(result, x / s)
