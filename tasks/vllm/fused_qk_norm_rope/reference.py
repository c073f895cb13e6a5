"""Reference for vLLM's fused_qk_norm_rope (torch.ops._C.fused_qk_norm_rope;
csrc/fused_qknorm_rope_kernel.cu, fusedQKNormRopeKernel): our own torch code, run by the worker
on float64 copies (values) and on the native inputs (structure and the GPU baseline).

qkv is the fused projection output [num_tokens, (num_heads_q + num_heads_k + num_heads_v) *
head_dim]: the query heads, then the key heads, then the value heads of each token. The op
rewrites every query and key head in place; value heads are left as they are. For one head x
(head_dim values, read as float32; float64 here on the float64 copies):

    y = x * rsqrt(mean(x^2) + eps) * w      (w = q_weight for query heads, k_weight for keys)

then the first rot_dim = cos_sin_cache.size(1) elements of y are rotated by the angles of the
token's position p = position_ids[t]: with cos = cos_sin_cache[p, :rot_dim/2] and
sin = cos_sin_cache[p, rot_dim/2:], pair j (y1, y2) becomes (y1 cos[j] - y2 sin[j],
y2 cos[j] + y1 sin[j]), pair j being (y[j], y[j + rot_dim/2]) for is_neox and (y[2j], y[2j+1])
otherwise. Elements from rot_dim on keep y. Each result is rounded once to qkv's dtype: the
normalised value is not rounded before the rotation (unlike vLLM's separate rms_norm, which
rounds before the weight).

Tolerance: every output depends on a mean of head_dim squares (terms of order 1 relative to
their mean), so `reduce` is head_dim; the rotation adds a sum of two products; the default
relative tolerance covers the single rounding to float16/bfloat16.
"""

import torch


def _accumulation_dtype(t: torch.Tensor) -> torch.dtype:
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def _norm_rope(x: torch.Tensor, w: torch.Tensor, eps: float, cos: torch.Tensor,
               sin: torch.Tensor, is_neox: bool) -> torch.Tensor:
    """x: [tokens, heads, head_dim] in the accumulation dtype; cos, sin: [tokens, rot_dim/2]."""
    y = x * torch.rsqrt(x.square().mean(dim=-1, keepdim=True) + eps) * w
    half = cos.shape[-1]
    c, s = cos[:, None, :], sin[:, None, :]
    if is_neox:
        i1 = torch.arange(0, half, device=x.device)
        i2 = i1 + half
    else:
        i1 = torch.arange(0, 2 * half, 2, device=x.device)
        i2 = i1 + 1
    y1, y2 = y[..., i1], y[..., i2]
    out = y.clone()
    out[..., i1] = y1 * c - y2 * s
    out[..., i2] = y2 * c + y1 * s
    return out


def fused_qk_norm_rope(qkv: torch.Tensor, num_heads_q: int, num_heads_k: int, num_heads_v: int,
                       head_dim: int, eps: float, q_weight: torch.Tensor, k_weight: torch.Tensor,
                       cos_sin_cache: torch.Tensor, is_neox: bool,
                       position_ids: torch.Tensor) -> None:
    acc = _accumulation_dtype(qkv)
    n_tokens = qkv.shape[0]
    heads = qkv.view(n_tokens, num_heads_q + num_heads_k + num_heads_v, head_dim)
    half = cos_sin_cache.shape[1] // 2
    rows = cos_sin_cache.to(acc)[position_ids]
    cos, sin = rows[:, :half], rows[:, half: 2 * half]
    parts = ((slice(0, num_heads_q), q_weight),
             (slice(num_heads_q, num_heads_q + num_heads_k), k_weight))
    for sl, w in parts:
        x = heads[:, sl].to(acc)
        heads[:, sl] = _norm_rope(x, w.to(acc), eps, cos, sin, is_neox).to(qkv.dtype)
