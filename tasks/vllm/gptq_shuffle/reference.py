"""Reference for vLLM's gptq_shuffle (torch.ops._C.gptq_shuffle; csrc/quantization/gptq/q_gemm.cu:
gptq_shuffle, shuffle_exllama_weight, make_sequential_{2,3,4,8}bit_kernel,
shuffle_{2,3,4,8}bit_kernel, and the word shuffles of qdq_2.cuh, qdq_3.cuh, qdq_4.cuh,
qdq_8.cuh): our own torch code, run by the worker on the native inputs.

The op prepares a GPTQ-quantized weight for vLLM's ExLlama kernels, in place. q_weight is int32
[K * bit / 32, N]: column n holds the K quantized values W[k, n] (k the input feature) of bit
bits each, packed along k. For bit 2, 4 and 8 a word holds 32 / bit consecutive values, value j
of word r (k = r * 32 / bit + j) at bits [j * bit, (j + 1) * bit). For bit 3, three consecutive
words (word 0 lowest) form a 96-bit group of 32 values, value j of group g (k = 32 g + j) at
bits [3 j, 3 j + 3) of the group (values 10 and 21 straddle two words).

1. If q_perm is not empty (int32 [K], a permutation: vLLM passes argsort(g_idx) for act-order
   checkpoints), the values are reordered along k: W'[k, n] = W[q_perm[k], n]. An empty q_perm
   leaves the order.
2. Each word (each 3-word group for bit 3) is then rearranged into the order ExLlama's
   dequantization reads:
   - bit 4 and bit 2 (v = 32 / bit values, half = v / 2): value j goes to slot j / 2 when j is
     even and to slot half + (j - 1) / 2 when odd, slot s at bits [s * bit, (s + 1) * bit): the
     even-indexed values fill the low 16 bits, the odd-indexed ones the high 16 bits;
   - bit 8: unchanged;
   - bit 3: values 10 w .. 10 w + 9 go to word w (w = 0, 1, 2) of the group, value 10 w + t at
     bits 3 (t / 2) when t is even and 16 + 3 (t - 1) / 2 when odd (bits 0..14 and 16..30); bit
     i of value 30 goes to bit 15 of word i and bit i of value 31 to bit 31 of word i.

The result is written back into q_weight; the op returns nothing and does not modify q_perm.
vLLM requires K to be a multiple of 32 (its kernels cover K / 32 groups) and, for bit 2, 4 and
8, an even N (its reordering kernel moves two columns per 64-bit load); the cases keep to it.

Tolerance: integers, compared exactly.
"""

import torch

_M32 = 0xFFFFFFFF


def _unpack(w: torch.Tensor, bit: int) -> torch.Tensor:
    """[R, N] words (int64 holding uint32) -> [K, N] values."""
    R, N = w.shape
    if bit == 3:
        g = w.reshape(R // 3, 3, N)
        vals = []
        for m in range(32):
            wi, s = (3 * m) // 32, (3 * m) % 32
            v = g[:, wi] >> s
            if s > 29:
                v = v | (g[:, wi + 1] << (32 - s))
            vals.append(v & 7)
        return torch.stack(vals, dim=1).reshape(R // 3 * 32, N)
    per = 32 // bit
    vals = [(w >> (j * bit)) & ((1 << bit) - 1) for j in range(per)]
    return torch.stack(vals, dim=1).reshape(R * per, N)


def _pack_shuffled(vals: torch.Tensor, bit: int) -> torch.Tensor:
    """[K, N] values -> [R, N] words (int64 holding uint32) in ExLlama's order."""
    K, N = vals.shape
    if bit == 3:
        v = vals.reshape(K // 32, 32, N)
        words = []
        for w in range(3):
            acc = torch.zeros_like(v[:, 0])
            for t in range(10):
                pos = 3 * (t // 2) + 16 * (t % 2)
                acc = acc | (v[:, 10 * w + t] << pos)
            acc = acc | (((v[:, 30] >> w) & 1) << 15) | (((v[:, 31] >> w) & 1) << 31)
            words.append(acc)
        return torch.stack(words, dim=1).reshape(K // 32 * 3, N)
    per = 32 // bit
    v = vals.reshape(K // per, per, N)
    acc = torch.zeros_like(v[:, 0])
    for j in range(per):
        pos = j * bit if bit == 8 else (j // 2) * bit + (j % 2) * 16
        acc = acc | (v[:, j] << pos)
    return acc


def gptq_shuffle(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None:
    if bit not in (2, 3, 4, 8):
        raise ValueError(f"gptq_shuffle: bit {bit} is not 2, 3, 4 or 8")
    w = q_weight.to(torch.int64) & _M32
    vals = _unpack(w, bit)
    if q_perm.numel() > 0:
        vals = vals[q_perm.long()]
    out = _pack_shuffled(vals, bit)
    # uint32 bit patterns back to int32 (two's complement).
    out = (out ^ 0x80000000) - 0x80000000
    q_weight.copy_(out.to(torch.int32))
