"""Reference for vLLM's convert_fp8 (torch.ops._C_cache_ops.convert_fp8; csrc/cache_kernels.cu:
convert_fp8 and convert_fp8_kernel, with fp8::scaled_convert / scaled_vec_conversion of
csrc/quantization/w8a8/fp8/nvidia/quant_utils.cuh; formerly csrc/quantization/fp8/nvidia/):
our own torch code, run on the native inputs (reference_precision "native": the quantized
bytes are compared exactly, so the arithmetic is vLLM's float32 arithmetic).

An fp8 KV cache is stored as uint8 bytes, each the bit pattern of a float8_e4m3fn value.
convert_fp8 converts a whole cache between that form and a float16/bfloat16/float32 one; the
direction follows the dtypes (vLLM dispatches on src_cache's dtype first):

- quantize (src_cache float16/bfloat16/float32, dst_cache uint8):
  dst = bits(fp8(clamp(float32(src) / scale, -448, 448))), the division correctly rounded,
  fp8() rounding to nearest even (the hardware conversion with saturation to finite values;
  a NaN stays NaN, the inputs have none);
- dequantize (src_cache uint8, dst_cache float16/bfloat16/float32):
  dst = round_to_dst(float32(value of the fp8 byte) * scale), one float32 product rounded to
  the destination dtype (to nearest even); the two NaN codes (0x7F, 0xFF) give NaN.

`scale` is a Python float, used as float32 (vLLM's kernel takes a `float`). Elements are
converted in flat (storage) order; both caches are contiguous and have as many elements.
kv_cache_dtype "fp8" or "fp8_e4m3" (vLLM's "auto" branch reaches an assert in scaled_convert,
and this version of the function has no e5m2 branch).
"""

import torch

FP8_MAX = 448.0


def convert_fp8(dst_cache: torch.Tensor, src_cache: torch.Tensor, scale: float,
                kv_cache_dtype: str) -> None:
    if kv_cache_dtype not in ("fp8", "fp8_e4m3"):
        raise ValueError(f"unsupported kv_cache_dtype {kv_cache_dtype!r}")
    s = torch.tensor(scale, dtype=torch.float32, device=src_cache.device)
    if src_cache.dtype in (torch.float16, torch.bfloat16, torch.float32):
        if dst_cache.dtype != torch.uint8:
            raise ValueError("quantize: dst_cache must be uint8")
        x = src_cache.reshape(-1).to(torch.float32)
        q = torch.div(x, s.expand_as(x)).clamp(-FP8_MAX, FP8_MAX)
        dst_cache.copy_(q.to(torch.float8_e4m3fn).view(torch.uint8).reshape(dst_cache.shape))
    elif src_cache.dtype == torch.uint8:
        v = src_cache.reshape(-1).view(torch.float8_e4m3fn).to(torch.float32)
        dst_cache.copy_((v * s).to(dst_cache.dtype).reshape(dst_cache.shape))
    else:
        raise ValueError(f"unsupported src_cache dtype {src_cache.dtype}")
