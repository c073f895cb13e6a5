"""Reference for vLLM's awq_gemm (torch.ops._C.awq_gemm; csrc/quantization/awq/gemm_kernels.cu:
awq_gemm, gemm_forward_4bit_cuda_m16nXk32, and dequantize_s4_to_fp16x2 of
csrc/quantization/awq/dequantize.cuh): our own torch code, run by the worker on float64 copies of
the floating inputs (values) and on the native inputs (structure and the GPU baseline).

awq_gemm(_in_feats, _kernel, _scaling_factors, _zeros, split_k_iters) is the 4-bit AWQ matrix
product out = _in_feats @ W for a weight W [K, N] stored as:

- _kernel: int32 [K, N / 8]. Word (k, c) holds the 4-bit values q[k, 8c .. 8c + 7] of row k in
  AWQ's interleaved order: output column 8c + j sits at nibble ORDER[j] of the word (bits
  4 ORDER[j] .. 4 ORDER[j] + 3) with ORDER = [0, 4, 1, 5, 2, 6, 3, 7]; equivalently nibbles 0..7
  hold columns 0, 2, 4, 6, 1, 3, 5, 7.
- _zeros: int32 [K / G, N / 8], the 4-bit zero points z[g, n], packed like _kernel.
- _scaling_factors: float16 [K / G, N], the scales s[g, n].

G = K / _scaling_factors.size(0) is the group size: row k belongs to group k // G, and
W[k, n] = (q[k, n] - z[k // G, n]) * s[k // G, n] (unsigned 4-bit values, no offset on the zero
point). The result is float16 [M, N] (the activations' dtype). split_k_iters only says how
vLLM's kernel splits the K loop (its partial sums are added at the end); it does not change the
result and is ignored here.

This reference dequantizes W in float32 (float64 on the float64 copies) and forms the product in
that precision, rounding once to the output dtype. The task's tolerance also admits a kernel
that rounds each dequantized weight to float16 before a float32-accumulated product (as vLLM's
kernel does: it forms (q - z) * s in half precision).
"""

import torch

# Bit position of output column j (0..7) within its word.
_SHIFTS = [0, 16, 4, 20, 8, 24, 12, 28]


def _unpack(words: torch.Tensor) -> torch.Tensor:
    """int32 [R, C] -> int32 [R, 8 C] unsigned 4-bit values in output-column order."""
    R, C = words.shape
    # An arithmetic shift of a negative word fills the top with sign bits; the mask keeps only
    # the four bits that were at [shift, shift + 4).
    cols = [(words >> s) & 0xF for s in _SHIFTS]
    return torch.stack(cols, dim=-1).reshape(R, C * 8)


def awq_gemm(_in_feats, _kernel, _scaling_factors, _zeros, split_k_iters):
    M, K = _in_feats.shape
    groups = _scaling_factors.shape[0]
    G = K // groups
    dt = torch.float64 if _in_feats.dtype == torch.float64 else torch.float32
    q = _unpack(_kernel)  # [K, N]
    z = _unpack(_zeros)  # [groups, N]
    grp = torch.arange(K, device=_kernel.device) // G
    w = (q - z[grp]).to(dt) * _scaling_factors.to(dt)[grp]
    return (_in_feats.to(dt) @ w).to(_in_feats.dtype)
