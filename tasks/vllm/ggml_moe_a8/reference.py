"""Reference for vLLM's ggml_moe_a8 (torch.ops._C.ggml_moe_a8; csrc/quantization/gguf/
gguf_kernel.cu: quantize_q8_1, ggml_moe_a8, ggml_moe_get_block_size; moe.cuh: moe_q and the
ggml_moe_*_q8_1_cuda launchers, MOE_X = 4 on CUDA; vecdotq.cuh: load_tiles_* and
vec_dot_*_q8_1_mul_mat with the _impl_mmq functions; block layouts of ggml-common.h): our own
torch code, run by the worker on the native inputs.

The expert matrix products of a GGUF mixture-of-experts layer, token by routed (token, k) pair:
X [tokens, K] activations, W [E, row, bytes per row] uint8 (expert e's weight is the raw GGUF
blocks of W[e], row-major, K / QK blocks per row), and the routing in the layout of vLLM's
moe_align_block_size with block size 4 (ggml_moe_get_block_size): sorted_token_ids [S] (int32)
lists flat pair indices t = token * top_k + k, grouped in blocks of 4 consecutive entries; block
b (entries 4b .. 4b+3) uses expert expert_ids[b]; entries t >= tokens * top_k are padding.
num_tokens_post_padded[0] bounds the blocks used.

For every block b < S // 4 with 0 <= expert_ids[b] <= 255 and 4 b <= num_tokens_post_padded[0],
and every entry t of it with t < tokens * top_k:
    Y[t, :] = MMQ product of expert expert_ids[b]'s weight with X[t // top_k]
(exactly the ggml_mul_mat_a8 arithmetic: X's row quantized to q8_1, integer block dot products
scaled in float32, Q4_K's min term through the fp16 block sum S8), converted to X's dtype.
Y is [tokens * top_k, row]; rows no entry writes are left unwritten by vLLM (torch.empty): every
case routes each pair exactly once to a valid expert, so every row is written (the reference
fills unwritten rows with zeros only to be defined).

q8_1 quantization (float32): amax = max |x| over 32 values, d = amax / 127, q_i = 0 if amax == 0
else roundf(x_i / d) (correctly rounded divisions, rounding half away from zero), s = sum x_i;
only D8 = fp16(d), S8 = fp16(s) and q_i are used. Per q8_1 block: Q8_0: d_w * D8 * sum(qw q);
Q4_0: d_w * (D8 * sum(nib q) - 8 * S8); Q4_K sub-block: d * D8 * sc * sum(nib q) - dmin * mn * S8.

The reference evaluates the block terms and their sums in float64 (exact integer sums, one
final rounding). Tolerance: float32 rounding of the per-block terms and their sum: `reduce` is
K / 32 and `scale` a per-case bound on the magnitude of the per-block float32 intermediates,
measured on the case distribution.
"""

import torch

# type -> (values per block, bytes per block)
_BLOCK = {2: (32, 18), 8: (32, 34), 12: (256, 144)}


def _half(b: torch.Tensor) -> torch.Tensor:
    """[..., 2] uint8 (little-endian) -> [...] float64 value of the float16 bit pattern."""
    shp = b.shape[:-1]
    return b.contiguous().view(torch.float16).reshape(shp).to(torch.float64)


def _q8_1(X: torch.Tensor):
    """X [V, K] -> (q [V, K/32, 32] int64, D8 [V, K/32] float64, S8 [V, K/32] float64)."""
    V, K = X.shape
    x = X.to(torch.float32).reshape(V, K // 32, 32)
    amax = x.abs().amax(dim=-1)
    d = amax / torch.full_like(amax, 127.0)  # float32, correctly rounded
    t = (x / d[..., None]).to(torch.float64)  # correctly rounded float32 quotients
    q = torch.sign(t) * torch.floor(t.abs() + 0.5)  # roundf: half away from zero
    q = torch.where((amax == 0)[..., None], torch.zeros_like(q), q).to(torch.int64)
    s = x.to(torch.float64).sum(dim=-1).to(torch.float32)
    D8 = d.to(torch.float16).to(torch.float64)
    S8 = s.to(torch.float16).to(torch.float64)
    return q, D8, S8


def _q4_k_scales(sc: torch.Tensor):
    """[..., 12] uint8 -> (scales, mins), each [..., 8] int64 (get_scale_min_k4)."""
    q = sc.to(torch.int64)
    scales, mins = [], []
    for j in range(8):
        if j < 4:
            scales.append(q[..., j] & 63)
            mins.append(q[..., j + 4] & 63)
        else:
            scales.append((q[..., j + 4] & 0xF) | ((q[..., j - 4] >> 6) << 4))
            mins.append((q[..., j + 4] >> 4) | ((q[..., j] >> 6) << 4))
    return torch.stack(scales, -1), torch.stack(mins, -1)


def _quant_matmul(W: torch.Tensor, X: torch.Tensor, type: int, row: int,
                  mmq_mins: bool) -> torch.Tensor:
    """float64 [V, row] for one weight W (the first row * K / QK blocks of its bytes).
    mmq_mins: Q4_K min term through S8 (the MMQ kernels) instead of D8 * sum(q) (the vector
    kernels). Loops over the q8_1 blocks, so memory stays O(V * row)."""
    if type not in _BLOCK:
        raise ValueError(f"GGML type {type} is not covered (2, 8, 12)")
    qk, bs = _BLOCK[type]
    V, K = X.shape
    if K % qk != 0:
        raise ValueError(f"K = {K} is not a multiple of {qk}")
    nbk = K // qk
    raw = W.contiguous().reshape(-1)[: row * nbk * bs].reshape(row, nbk, bs)
    q, D8, S8 = _q8_1(X)  # [V, K/32, 32], [V, K/32]
    qd = q.double()
    out = torch.zeros(V, row, dtype=torch.float64, device=X.device)
    if type in (2, 8):
        dw = _half(raw[..., 0:2])  # [row, nbk]
        for b in range(nbk):
            if type == 8:
                qw = raw[:, b, 2:].view(torch.int8).double()  # [row, 32]
            else:
                qs = raw[:, b, 2:].to(torch.int64)
                qw = torch.cat([qs & 0xF, qs >> 4], dim=-1).double()
            sumi = qd[:, b] @ qw.T  # exact integers, [V, row]
            if type == 8:
                out += sumi * D8[:, b, None] * dw[None, :, b]
            else:
                out += dw[None, :, b] * (sumi * D8[:, b, None] - 8.0 * S8[:, b, None])
        return out
    d = _half(raw[..., 0:2])
    dmin = _half(raw[..., 2:4])
    scales, mins = _q4_k_scales(raw[..., 4:16])  # [row, nbk, 8]
    for b in range(nbk):
        qs = raw[:, b, 16:].to(torch.int64).reshape(row, 4, 32)
        nib = torch.stack([qs & 0xF, qs >> 4], dim=2).reshape(row, 8, 32).double()
        for s in range(8):
            j = 8 * b + s
            sumi = qd[:, j] @ nib[:, s].T  # [V, row]
            part_d = D8[:, j, None] * scales[None, :, b, s].double() * sumi
            if mmq_mins:
                part_m = S8[:, j, None] * mins[None, :, b, s].double()
            else:
                part_m = D8[:, j, None] * mins[None, :, b, s].double() * qd[:, j].sum(-1)[:, None]
            out += d[None, :, b] * part_d - dmin[None, :, b] * part_m
    return out

_BLOCK_SIZE = 4  # MOE_X_* on CUDA: entries of sorted_token_ids per expert block


def ggml_moe_a8(X: torch.Tensor, W: torch.Tensor, sorted_token_ids: torch.Tensor,
                expert_ids: torch.Tensor, num_tokens_post_padded: torch.Tensor, type: int,
                row: int, top_k: int, tokens: int) -> torch.Tensor:
    n_pairs = tokens * top_k
    Y = torch.zeros(n_pairs, row, dtype=X.dtype, device=X.device)
    nblk = sorted_token_ids.numel() // _BLOCK_SIZE
    if nblk == 0 or n_pairs == 0:
        return Y
    ids = sorted_token_ids.reshape(-1)[: nblk * _BLOCK_SIZE].long()
    blk = torch.arange(nblk * _BLOCK_SIZE, device=X.device) // _BLOCK_SIZE
    e = expert_ids.reshape(-1)[:nblk].long()[blk]
    ntpp = int(num_tokens_post_padded.reshape(-1)[0])
    ok = (ids >= 0) & (ids < n_pairs) & (e >= 0) & (e <= 255) & (blk * _BLOCK_SIZE <= ntpp)
    for ex in torch.unique(e[ok]).tolist():
        sel = ok & (e == ex)
        t = ids[sel]
        y = _quant_matmul(W[ex], X[t // top_k], type, row, mmq_mins=True)
        Y[t] = y.to(X.dtype)
    return Y
