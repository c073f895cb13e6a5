"""Reference for vLLM's int8 activation quantization (torch.ops._C.static_scaled_int8_quant and
torch.ops._C.dynamic_scaled_int8_quant, which vllm._custom_ops.scaled_int8_quant dispatches to;
csrc/quantization/compressed_tensors/int8_quant_kernels.cu): our own torch code, run by the worker
on the native inputs (reference_precision "native": the int8 result is exact, so the arithmetic
must be vLLM's float32 arithmetic, not a float64 approximation of it).

Both ops quantize every row of `input` (its last dimension, hidden_size; the leading dimensions
are tokens) to int8 and write `result` (same shape, int8). Every step is a float32 operation,
correctly rounded; round() rounds half to even; the final value saturates to [-128, 127]:

- static, symmetric (azp None): result = sat8(round(x / scale)), scale one float32 number.
- static, asymmetric: result = sat8(round(x * (1 / scale)) + azp), azp one int32 number.
- dynamic, symmetric: per row, absmax = max |x|; scale[row] = absmax / 127;
  result = sat8(round(x * (127 / absmax))), with the factor 0 for an all-zero row.
- dynamic, asymmetric: per row, s = (max x - min x) / 255; zp = round(-128 - min x / s);
  scale[row] = s, azp[row] = zp; result = sat8(round(x * (1 / s)) + zp).

x is the input element converted to float32 (exact for float16 and bfloat16). The dynamic op
writes `scale` ([num_tokens, 1], float32) and, when given, `azp` ([num_tokens, 1], int32); the
static op only reads them. Neither returns anything or modifies `input`.

The static op divides by the scale without and multiplies by its reciprocal with a zero point,
as vLLM's kernels do; the reciprocal and the quotient differ in the last bit for some inputs,
which moves a value lying within an ulp of a half-integer to the neighbouring integer.

Tolerance: the int8 and int32 outputs are exact; the dynamic op's float32 scale is compared with
float32's default tolerance (`out_dtype` float32).
"""

import torch


def _rows(input: torch.Tensor) -> torch.Tensor:
    return input.reshape(-1, input.shape[-1]).to(torch.float32)


def _div(a: torch.Tensor | float, b: torch.Tensor | float, like: torch.Tensor) -> torch.Tensor:
    """a / b as one correctly rounded float32 division. Both operands are made tensors: torch
    computes `number / tensor` as reciprocal-then-multiply, and CUDA `tensor / number` as a
    multiplication by the reciprocal, each one rounding more than the kernel's division."""
    a = a if isinstance(a, torch.Tensor) else torch.full_like(like, a)
    b = b if isinstance(b, torch.Tensor) else torch.full_like(like, b)
    return torch.div(a, b)


def _round_sat8(v: torch.Tensor) -> torch.Tensor:
    # torch.round rounds half to even, as the kernel's cvt.rni does.
    return torch.round(v).clamp(-128, 127).to(torch.int8)


def static_scaled_int8_quant(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor,
                             azp: torch.Tensor | None) -> None:
    x = _rows(input)
    s = scale.reshape(()).to(torch.float32)
    if azp is None:
        q = _round_sat8(_div(x, s, x))
    else:
        inv = _div(1.0, s, s)
        q = _round_sat8(torch.round(x * inv) + azp.reshape(()).to(torch.float32))
    result.copy_(q.reshape(result.shape))


def dynamic_scaled_int8_quant(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor,
                              azp: torch.Tensor | None) -> None:
    x = _rows(input)
    if azp is None:
        absmax = x.abs().amax(dim=-1, keepdim=True)
        scale.copy_(_div(absmax, 127.0, absmax).reshape(scale.shape))
        inv = torch.where(absmax == 0, torch.zeros_like(absmax), _div(127.0, absmax, absmax))
        q = _round_sat8(x * inv)
    else:
        hi = x.amax(dim=-1, keepdim=True)
        lo = x.amin(dim=-1, keepdim=True)
        s = _div(hi - lo, 255.0, lo)
        zp = torch.round(-128 - _div(lo, s, lo))
        scale.copy_(s.reshape(scale.shape))
        azp.copy_(zp.reshape(azp.shape).to(torch.int32))
        q = _round_sat8(torch.round(x * _div(1.0, s, s)) + zp)
    result.copy_(q.reshape(result.shape))
