"""Reference for vLLM's gptq_marlin_24_gemm (torch.ops._C.gptq_marlin_24_gemm; host function and
kernel in csrc/quantization/marlin/sparse/marlin_24_cuda_kernel.cu, the packing in
vllm/model_executor/layers/quantization/utils/marlin_utils_test_24.py: marlin_24_quantize,
compress_quantized_24_weight, sparse_semi_structured_from_dense_cutlass with
_calculate_meta_reordering_scatter_offsets, get_weight_perm_24 + marlin_weights,
marlin_permute_scales_24): our own torch code, run by the worker on float64 copies of the
floating inputs (values) and on the native inputs (structure and the GPU baseline).

out[M, N] = a @ W, float16, for a float16 [M, K] and a 2:4-sparse quantized weight W [K, N]:
in every column n, of each 4 consecutive rows 4 g .. 4 g + 3 (a "quad") two are kept and two are
zero. The kept values are stored compressed: a K/2 x N matrix qc of quantized integers, where
compressed row kc = 2 g + j (j = 0, 1) holds the j-th kept value of quad g (the one at the lower
row first). b_meta says which rows of each quad are kept. With bias B (8 for uint4b8, 128 for
uint8b128) and scale s:

    W[4 g + idx_j(g, n), n] = (qc[2 g + j, n] - B) * s[group(4 g + idx_j), n],   other rows 0.

Layouts (all closed forms checked against vLLM's packing functions):

- b_meta, int16 [K / 32, 2 N] (read each as an unsigned 16-bit pattern). Quad g of column n has
  a 4-bit code: its low 2 bits idx_0 and high 2 bits idx_1 are the positions (0..3, idx_0 <
  idx_1) of the kept rows; the six codes are 0x4 (0,1), 0x8 (0,2), 0x9 (1,2), 0xC (0,3),
  0xD (1,3), 0xE (2,3). Four quads make a 16-bit word: word c (= k // 16) of column n holds
  quad 4 c + t at bits 4 t .. 4 t + 3. The words are stored in CUTLASS's reordered layout for
  sparse tensor-core metadata (columns n permuted within each 64, 2 x 2 blocks transposed,
  pairs of words interleaved): word (n, c) is at

      b_meta[c // 2, 128 (n // 64) + 64 ((n % 4) // 2) + 8 ((n % 64) // 8) + 4 (n % 2)
                     + 2 (c % 2) + (n % 8) // 4].

- b_q_weight, int32 [K / 32, N * 16 / pf] with pf = 32 / bits values per word (2 N words a row
  for 4 bits, 4 N for 8 bits; read words as unsigned): Marlin's tiled layout of the compressed
  matrix qc [K/2, N], 16 compressed rows per b_q_weight row. Value qc[kc, n] is in row kc // 16,
  4 bits: word 128 (n // 64) + 32 ((n % 64) // 16) + 16 ((n % 16) // 8) + 4 ((kc % 8) // 2)
            + n % 4, nibble 4 (kc % 2) + 2 ((n % 8) // 4) + (kc % 16) // 8;
  8 bits: word 256 (n // 64) + 64 ((n % 64) // 16) + 32 ((n % 16) // 8) + 8 ((kc % 8) // 2)
            + 2 (n % 4) + (n % 8) // 4, byte 2 (kc % 2) + (kc % 16) // 8.
  (nibble / byte i at bits bits*i .. bits*i + bits - 1.)

- b_scales, float16 [groups, N]. groups == 1: one scale per column, s[n] = b_scales[0, n] (no
  permutation). groups > 1: group size K / groups = 128, row k in group k // 128, and within
  every 8 consecutive columns the scales are permuted:
      s[grp, n] = b_scales[grp, 8 (n // 8) + 2 (n % 4) + (n % 8) // 4].

- workspace: vLLM's zeroed int32 lock buffer; no effect on the result (read nowhere here).

W is formed exactly (float32, or float64 on the float64 copies) and the product taken in that
precision, rounded once to float16. The task's tolerance also admits rounding each weight to
float16 before a float32-accumulated product, as vLLM's tensor-core kernel does.
"""

import torch

UINT4B8_ID = (4 << 8) | (8 << 17) | (1 << 50)
UINT8B128_ID = (8 << 8) | (128 << 17) | (1 << 50)


def decode_dense_weight(b_q_weight, b_meta, b_scales, bits, K, N, dt):
    """Decode the three packed inputs into the dense weight W [K, N] of dtype dt."""
    dev = b_q_weight.device
    bias = 8 if bits == 4 else 128
    kc = torch.arange(K // 2, device=dev, dtype=torch.int64)[:, None]  # compressed row
    n = torch.arange(N, device=dev, dtype=torch.int64)[None, :]
    # Quantized compressed values qc[kc, n].
    if bits == 4:
        word = (128 * (n // 64) + 32 * ((n % 64) // 16) + 16 * ((n % 16) // 8)
                + 4 * ((kc % 8) // 2) + n % 4)
        shift = 4 * (4 * (kc % 2) + 2 * ((n % 8) // 4) + (kc % 16) // 8)
    else:
        word = (256 * (n // 64) + 64 * ((n % 64) // 16) + 32 * ((n % 16) // 8)
                + 8 * ((kc % 8) // 2) + 2 * (n % 4) + (n % 8) // 4)
        shift = 8 * (2 * (kc % 2) + (kc % 16) // 8)
    words = b_q_weight.to(torch.int64) & 0xFFFFFFFF
    qc = (words[kc // 16, word] >> shift) & ((1 << bits) - 1)
    del word, shift, words
    # Dense row of each compressed value: quad g = kc // 2, position idx_{kc % 2} of its code.
    g = kc // 2
    c = g // 4  # metadata word along k (16 rows of K)
    mcol = (128 * (n // 64) + 64 * ((n % 4) // 2) + 8 * ((n % 64) // 8) + 4 * (n % 2)
            + 2 * (c % 2) + (n % 8) // 4)
    meta = b_meta.to(torch.int64) & 0xFFFF
    code = (meta[c // 2, mcol] >> (4 * (g % 4))) & 0xF
    idx = (code >> (2 * (kc % 2))) & 0x3
    krow = 4 * g + idx  # [K/2, N]
    del mcol, meta, code, idx
    # Scales of each compressed value (by the group of its dense row).
    groups = b_scales.shape[0]
    if groups == 1:
        s = b_scales.to(dt)[0][None, :].expand(K // 2, N)
    else:
        scol = 8 * (n // 8) + 2 * (n % 4) + (n % 8) // 4
        s = b_scales.to(dt)[krow // (K // groups), scol]
    vals = (qc - bias).to(dt) * s
    w = torch.zeros(K, N, dtype=dt, device=dev)
    w.scatter_(0, krow, vals)
    return w


def gptq_marlin_24_gemm(a, b_q_weight, b_meta, b_scales, workspace, b_q_type, size_m, size_n,
                        size_k):
    if b_q_type == UINT4B8_ID:
        bits = 4
    elif b_q_type == UINT8B128_ID:
        bits = 8
    else:
        raise ValueError("b_q_type must be scalar_types.uint4b8.id or uint8b128.id")
    M, N, K = int(size_m), int(size_n), int(size_k)
    groups = b_scales.shape[0]
    if groups > 1 and K // groups != 128:
        raise ValueError("grouped scales must have group size 128")
    dt = torch.float64 if a.dtype == torch.float64 else torch.float32
    w = decode_dense_weight(b_q_weight, b_meta, b_scales, bits, K, N, dt)
    return (a.reshape(M, K).to(dt) @ w).to(a.dtype)
