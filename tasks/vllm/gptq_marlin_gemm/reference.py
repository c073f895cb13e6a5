"""Reference for vLLM's gptq_marlin_gemm (torch.ops._C.gptq_marlin_gemm; host function and Marlin
kernel in csrc/quantization/gptq_marlin/gptq_marlin.cu and marlin_template.h; weight layout from
gptq_marlin_repack.cu, scale layout from marlin_permute_scales in
vllm/model_executor/layers/quantization/utils/marlin_utils.py): our own torch code, run by the
worker on the native inputs (it computes in float64 internally).

Covered subset: the GPTQ W4A16 path. b_type_id is scalar_types.uint4b8.id (4-bit values with
bias 8), activations float16 or bfloat16, grouped scales (group size 32, 64 or 128, smaller than
K), no zero points (b_zeros empty), no act-order (g_idx and perm empty, is_k_full true), no bias,
no activation scales or global scale, c_or_none None (a new output), is_zp_float false. The
flags use_atomic_add and use_fp32_reduce only change how vLLM reduces partial sums across its
thread blocks; the result is defined with float32 accumulation either way.

out[m, n] = sum_k a[m, k] * w[k, n],  w[k, n] = dt((q[k, n] - 8) * s[k // G, n])

where dt rounds to the activation dtype (Marlin dequantizes q - 8 exactly and multiplies by the
scale in half precision before its tensor-core products), the sum is accumulated in float32 (here
float64) and rounded once to the activation dtype.

Weight layout (gptq_marlin_repack's output, num_bits 4): b_q_weight is int32 [K / 16, N * 2].
The K x N matrix q is cut into 16 x 64 tiles; row kt of b_q_weight is the tiles (kt, 0),
(kt, 1), ... of 128 words each. Word t of a tile (t = 4 th + w, th in 0..31, w in 0..3) holds 8
nibbles (slot s at bits 4 s .. 4 s + 3); with r = 2 (th % 4) and c = 16 w + th // 4, slots 0..7
hold tile positions (r, c), (r+8, c), (r, c+8), (r+8, c+8), (r+1, c), (r+9, c), (r+1, c+8),
(r+9, c+8) (row in the tile, column in the tile). Equivalently, value q[k, n] is in word
[k // 16, 128 (n // 64) + 4 (4 (n % 8) + (k % 8) // 2) + (n % 64) // 16], slot
(k % 16) // 8 + 2 ((n % 16) // 8) + 4 (k % 2).

Scale layout (marlin_permute_scales with group_size < K): b_scales is [K / G, N] in the
activation dtype with every 64 consecutive columns transposed as an 8 x 8 block: the scale of
column n of group g is b_scales[g, 64 (n // 64) + 8 (n % 8) + (n % 64) // 8].
"""

import torch

UINT4B8_ID = (4 << 8) | (8 << 17) | (1 << 50)  # exponent 0, mantissa 4, bias 8, NaN repr IEEE


def _tile_positions() -> torch.Tensor:
    """[128, 8] long: position kk * 64 + nn inside a 16 x 64 tile of slot s of word t."""
    pos = torch.empty(128, 8, dtype=torch.long)
    dr = [0, 8, 0, 8, 1, 9, 1, 9]
    dc = [0, 0, 8, 8, 0, 0, 8, 8]
    for t in range(128):
        th, w = t // 4, t % 4
        r, c = 2 * (th % 4), 16 * w + th // 4
        for s in range(8):
            pos[t, s] = (r + dr[s]) * 64 + c + dc[s]
    return pos


def unpack_marlin_uint4(b_q_weight: torch.Tensor, K: int, N: int) -> torch.Tensor:
    """int32 [K / 16, 2 N] in Marlin's tiled layout -> int64 [K, N] values in [0, 16)."""
    kt, nt = K // 16, N // 64
    words = b_q_weight.reshape(kt, nt, 128)
    nib = torch.empty(kt, nt, 128, 8, dtype=torch.uint8, device=words.device)
    for s in range(8):  # int32 shifts are arithmetic; the mask keeps the right 4 bits
        nib[..., s] = (words >> (4 * s)) & 0xF
    tiles = torch.empty(kt, nt, 1024, dtype=torch.uint8, device=words.device)
    tiles[..., _tile_positions().to(words.device).reshape(-1)] = nib.reshape(kt, nt, 1024)
    return tiles.reshape(kt, nt, 16, 64).permute(0, 2, 1, 3).reshape(K, N).to(torch.int64)


def unpermute_scales(b_scales: torch.Tensor, N: int) -> torch.Tensor:
    """[groups, N] in Marlin's order -> [groups, N] natural order (an 8 x 8 transpose per 64)."""
    g = b_scales.shape[0]
    return b_scales.reshape(g, N // 64, 8, 8).transpose(-1, -2).reshape(g, N)


def gptq_marlin_gemm(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, a_scales, global_scale,
                     b_zeros_or_none, g_idx_or_none, perm_or_none, workspace, b_type_id, size_m,
                     size_n, size_k, is_k_full, use_atomic_add, use_fp32_reduce, is_zp_float):
    def empty(t):
        return t is None or t.numel() == 0

    if b_type_id != UINT4B8_ID:
        raise NotImplementedError("only scalar_types.uint4b8 is covered")
    if not (empty(c_or_none) and empty(b_bias_or_none) and empty(a_scales)
            and empty(global_scale) and empty(b_zeros_or_none) and empty(g_idx_or_none)
            and empty(perm_or_none) and is_k_full and not is_zp_float):
        raise NotImplementedError("only the grouped uint4b8 path without extras is covered")
    M, N, K = size_m, size_n, size_k
    dt = a.dtype
    groups = b_scales.shape[0]
    if groups < 2 or K % groups:
        raise NotImplementedError("only grouped scales with group_size < size_k are covered")
    G = K // groups
    q = unpack_marlin_uint4(b_q_weight, K, N)  # [K, N]
    s = unpermute_scales(b_scales, N).to(torch.float32)  # [groups, N]
    s_full = s.repeat_interleave(G, dim=0)  # [K, N]
    # (q - 8) * s is exact in float32 (4 x 11 or 4 x 8 significant bits): one rounding to dt.
    w = ((q - 8).to(torch.float32) * s_full).to(dt).to(torch.float64)
    del q, s_full
    out = a.reshape(M, K).to(torch.float64) @ w
    return out.to(dt)
