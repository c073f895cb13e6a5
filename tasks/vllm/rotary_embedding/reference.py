"""Reference for vLLM's rotary_embedding (torch.ops._C.rotary_embedding;
csrc/pos_encoding_kernels.cu): our own torch code, run by the worker on float64 copies (values) and
on the native inputs (structure and the GPU baseline).

rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox) rotates, in place,
the first rot_dim elements of every head of `query` (and of `key`, when it is given) by the
angles of the token's position. cos_sin_cache has one row of rot_dim values per position: the
rot_dim / 2 cosines, then the rot_dim / 2 sines. Within a head, element pairs (x1, x2) are
rotated as

    x1' = x1 * cos[j] - x2 * sin[j]
    x2' = x2 * cos[j] + x1 * sin[j]

where pair j is (head[j], head[j + rot_dim / 2]) in the NeoX style (is_neox true: the two
halves of the rotated part) and (head[2 j], head[2 j + 1]) in the GPT-J style (interleaved
pairs). The elements of a head past rot_dim are left as they are. The op returns nothing.

The products and sums are computed in float32 (float64 here on the float64 copies) from the
stored query/key and cache values, and each result is rounded once to the tensors' dtype. vLLM's
CUDA kernel does the arithmetic in the tensors' own dtype (each product rounded to float16 or
bfloat16); we ask for float32 on purpose: with that rounding the difference of two products can
lose every bit of a small result, which no relative tolerance admits.

Tolerance: each output is a sum of two products of terms of order 1, so `reduce` is 2; the
default relative tolerance covers the single rounding to the output dtype.
"""

import torch


def _accumulation_dtype(t: torch.Tensor) -> torch.dtype:
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def _rotate(x: torch.Tensor, n_tokens: int, head_size: int, cos: torch.Tensor,
            sin: torch.Tensor, is_neox: bool) -> None:
    rot = 2 * cos.shape[-1]
    heads = x.reshape(n_tokens, -1, head_size).to(_accumulation_dtype(x))
    if is_neox:
        x1, x2 = heads[..., : rot // 2], heads[..., rot // 2: rot]
    else:
        x1, x2 = heads[..., 0:rot:2], heads[..., 1:rot:2]
    c, s = cos[:, None, :], sin[:, None, :]
    y1 = x1 * c - x2 * s
    y2 = x2 * c + x1 * s
    out = heads.clone()
    if is_neox:
        out[..., : rot // 2], out[..., rot // 2: rot] = y1, y2
    else:
        out[..., 0:rot:2], out[..., 1:rot:2] = y1, y2
    x.copy_(out.reshape(x.shape))


def rotary_embedding(positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None,
                     head_size: int, cos_sin_cache: torch.Tensor, is_neox: bool) -> None:
    half = cos_sin_cache.shape[-1] // 2
    rows = cos_sin_cache.to(_accumulation_dtype(query))[positions.reshape(-1)]
    cos, sin = rows[:, :half], rows[:, half: 2 * half]
    n_tokens = positions.numel()
    for x in (query, key):
        if x is not None:
            _rotate(x, n_tokens, head_size, cos, sin, is_neox)
