"""Reference for vLLM's gptq_marlin_moe_repack (vllm/_custom_ops.py::gptq_marlin_moe_repack, which
calls torch.ops._C.gptq_marlin_repack once per expert; the kernel is gptq_marlin_repack_kernel in
csrc/quantization/gptq_marlin/gptq_marlin_repack.cu): our own torch code.

The op rewrites the GPTQ-packed 4- or 8-bit weights of every expert of a MoE layer into the tiled
layout Marlin's MoE GEMM reads. Per expert e it is a pure permutation of quantized values, so the
result is compared bit for bit.

Input. b_q_weight is int32 [E, K / pf, N] with pf = 32 / num_bits values per word (8 or 4):
column n of expert e holds the K values W[e, k, n] packed along k, value k in word k // pf at bits
[(k % pf) * num_bits, (k % pf + 1) * num_bits) (words read as unsigned 32-bit patterns).

Act-order. perm is int32 [E, K] or [E, 0]. When it is not empty, the rows are first gathered:
W'[e, k, n] = W[e, perm[e, k], n] (vLLM passes argsort(g_idx) of each expert, a permutation; the
kernel is a plain gather, so repeated indices are just read twice). An empty perm leaves W.

Tiles. With is_a_8bit false Marlin tiles W' into 16 x 64 tiles (TK = 16 rows of k, TN = 64
columns of n); with is_a_8bit true (the layout for int8/fp8 activations) into 32 x 32 tiles.
Every tile is TK * TN / pf = 1024 / pf consecutive output words (128 for 4 bits, 256 for 8),
the tiles in row-major tile order (kt, nt): tile (kt, nt) of expert e starts at flat word
(kt * (N / TN) + nt) * (1024 / pf) of that expert's output. The output tensor is int32
[E, K / 16, N * 16 / pf], i.e. each expert's words in that flat order (for 16 x 64 tiles one
output row is one row of tiles).

Inside a tile, the words are what the 128 threads of a 4-warp Marlin block hold for the
tensor-core fragments: word t belongs to lane th and warp w, and holds pf values (slot s at bits
[s * num_bits, (s + 1) * num_bits)) taken from the tile at (row kk, column nn):

- 16 x 64, 4 bits: t = 4 th + w. With r = 2 (th % 4) and c = w * 16 + th // 4, the 8 values
  v0..v7 are (r, c), (r+1, c), (r+8, c), (r+9, c), then the same four rows at column c + 8; the
  word interleaves them as slots 0..7 = v0 v2 v4 v6 v1 v3 v5 v7, i.e. rows/cols
  (r,c) (r+8,c) (r,c+8) (r+8,c+8) (r+1,c) (r+9,c) (r+1,c+8) (r+9,c+8).
- 16 x 64, 8 bits: t = 8 th + 2 w + h (h = 0, 1), column c + 8 h, slots 0..3 = rows
  r, r+8, r+1, r+9.
- 32 x 32, 4 bits: t = 4 th + w. With r = 4 (th % 4) and c = (w // 2) * 16 + (w % 2) * 8 +
  th // 4, slots 0..7 = rows r, r+16, r+1, r+17, r+2, r+18, r+3, r+19, all at column c.
- 32 x 32, 8 bits: t = 8 th + 2 w + h, column c as above, slots 0..3 = rows
  r + 16 h, r + 16 h + 1, r + 16 h + 2, r + 16 h + 3.

vLLM requires K % 16 == 0 and N % 64 == 0 (and, for is_a_8bit, K % 32 == 0 so every row is
covered; vLLM's kernel leaves a remainder unwritten) and has no act-order with is_a_8bit.

Tolerance: integers, compared exactly.
"""

import torch



def _tile_table(num_bits: int, is_a_8bit: bool):
    """(TK, TN, kk, nn): kk/nn [TW, pf] long, the tile row and column of slot s of word t."""
    pf = 32 // num_bits
    tk, tn = (32, 32) if is_a_8bit else (16, 64)
    tw = tk * tn // pf
    kk = torch.empty(tw, pf, dtype=torch.long)
    nn = torch.empty(tw, pf, dtype=torch.long)
    for t in range(tw):
        if num_bits == 4:
            th, w, h = t // 4, t % 4, 0
        else:
            th, w, h = t // 8, (t % 8) // 2, t % 2
        for s in range(pf):
            if not is_a_8bit:
                r, c = 2 * (th % 4), w * 16 + th // 4
                if num_bits == 4:
                    j = [0, 2, 4, 6, 1, 3, 5, 7][s]  # v_j: row offset [0,1,8,9][j%4], col +8 if j>=4
                    kk[t, s] = r + [0, 1, 8, 9][j % 4]
                    nn[t, s] = c + 8 * (j // 4)
                else:
                    kk[t, s] = r + [0, 8, 1, 9][s]
                    nn[t, s] = c + 8 * h
            else:
                r, c = 4 * (th % 4), (w // 2) * 16 + (w % 2) * 8 + th // 4
                if num_bits == 4:
                    kk[t, s] = r + (s // 2) + 16 * (s % 2)
                else:
                    kk[t, s] = r + s + 16 * h
                nn[t, s] = c
    return tk, tn, kk, nn


def marlin_tile(vals: torch.Tensor, num_bits: int, is_a_8bit: bool) -> torch.Tensor:
    """vals: [E, K, N] integer values < 2**num_bits -> int32 [E, K / 16, N * 16 / pf]."""
    E, K, N = vals.shape
    pf = 32 // num_bits
    tk, tn, kk, nn = _tile_table(num_bits, is_a_8bit)
    kk, nn = kk.to(vals.device), nn.to(vals.device)
    # [E, Kt, TK, Nt, TN] -> [E, Kt, Nt, TK * TN]: one row per tile, row-major inside.
    tiles = vals.reshape(E, K // tk, tk, N // tn, tn).permute(0, 1, 3, 2, 4)
    tiles = tiles.reshape(E, K // tk, N // tn, tk * tn)
    words = torch.zeros(E, K // tk, N // tn, kk.shape[0], dtype=torch.int64,
                        device=vals.device)
    for s in range(pf):  # slot s of every word: one gather of tile positions
        words |= tiles[..., kk[:, s] * tn + nn[:, s]].to(torch.int64) << (s * num_bits)
    words = (words ^ 0x80000000) - 0x80000000  # uint32 pattern -> int32 value
    return words.to(torch.int32).reshape(E, K // 16, N * 16 // pf)


def gptq_marlin_moe_repack(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int,
                           size_n: int, num_bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    if num_bits not in (4, 8):
        raise ValueError(f"num_bits must be 4 or 8, got {num_bits}")
    pf = 32 // num_bits
    E = b_q_weight.shape[0]
    K, N = size_k, size_n
    if K % 16 or N % 64 or (is_a_8bit and K % 32):
        raise ValueError("size_k must be a multiple of 16 (32 with is_a_8bit), size_n of 64")
    if tuple(b_q_weight.shape) != (E, K // pf, N):
        raise ValueError(f"b_q_weight must be [E, {K // pf}, {N}], got {tuple(b_q_weight.shape)}")
    # value k = word k // pf, field k % pf -> [E, K/pf, pf, N] -> [E, K, N]. The shift is
    # arithmetic on int32, which leaves the masked low bits as a logical shift would.
    vals = torch.empty(E, K // pf, pf, N, dtype=torch.uint8, device=b_q_weight.device)
    for j in range(pf):
        vals[:, :, j, :] = (b_q_weight >> (j * num_bits)) & ((1 << num_bits) - 1)
    vals = vals.reshape(E, K, N)
    if perm.numel() > 0:
        if is_a_8bit:
            raise ValueError("act-order (a non-empty perm) is not supported with is_a_8bit")
        idx = perm.to(torch.long).reshape(E, K)
        vals = torch.gather(vals, 1, idx[:, :, None].expand(E, K, N))
    return marlin_tile(vals, num_bits, is_a_8bit)
