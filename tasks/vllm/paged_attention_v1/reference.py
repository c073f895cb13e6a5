"""Reference for vLLM's paged_attention_v1 (torch.ops._C.paged_attention_v1;
csrc/attention/paged_attention_v1.cu, csrc/attention/attention_kernels.cuh): our own torch code,
run by the worker on float64 copies (values) and on the native inputs (structure and the GPU
baseline).

Decode attention over a paged KV cache: sequence s has one query token, query[s] ([num_heads,
head_size]), and attends to its seq_lens[s] cached tokens. Token i of the sequence lives in
block block_tables[s, i // block_size], position i % block_size; the key cache is [num_blocks,
num_kv_heads, head_size / x, block_size, x] (element d of a key at [b, h, d // x, p, d % x]) and
the value cache [num_blocks, num_kv_heads, head_size, block_size] (element d at [b, h, d, p]).
Query head h reads KV head h // (num_heads / num_kv_heads). For every sequence and query head:

    logit[i] = scale * dot(query[s, h], key_i) + slope[h] * (i - seq_len + 1)   (slope: alibi)
    out[s, h] = sum over i < seq_len of softmax(logit)[i] * value_i

computed in float32 (float64 here on the float64 copies) and rounded once to the output dtype.
Only the `auto` KV-cache dtype (no fp8) and the dense path (blocksparse_vert_stride <= 1) are
covered; k_scale, v_scale, tp_rank and the blocksparse arguments are then unused. vLLM's kernel
adds 1e-6 to the softmax denominator (at least 1), a relative change below 1e-6, ignored here.

The batched form below gathers every sequence's max_num_blocks_per_seq blocks and masks the
positions from seq_len on; what the block table holds past a sequence's blocks is never used.

Tolerance: vLLM rounds the probabilities to the query dtype before the product with the values
(a float16 or bfloat16 rounding of every term of the sum); the tolerance admits that: `reduce`
is the longest sequence and `scale` (cfg.ts) was sized from a simulation of vLLM's arithmetic
(bfloat16 rounded to nearest and truncated, as Triton's CPU interpreter does) at 4.5 times the
largest error it showed for the case's dtype, heads and sequence lengths; float32 keeps 1. The
shipped solution, which rounds like vLLM, uses up to about half of it on the interpreter.
"""

import torch


def _accumulation_dtype(t: torch.Tensor) -> torch.dtype:
    return torch.float64 if t.dtype == torch.float64 else torch.float32


def _paged_attention(out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor,
                     value_cache: torch.Tensor, num_kv_heads: int, scale: float,
                     block_tables: torch.Tensor, seq_lens: torch.Tensor,
                     alibi_slopes: torch.Tensor | None) -> None:
    acc = _accumulation_dtype(query)
    n_seqs, n_heads, head_size = query.shape
    block_size = value_cache.shape[3]
    blocks = block_tables.long()
    n_pos = blocks.shape[1] * block_size
    # [seqs, blocks, kv_heads, head_size / x, block_size, x] -> [seqs, kv_heads, positions, d]
    keys = key_cache[blocks].permute(0, 2, 1, 4, 3, 5).reshape(
        n_seqs, num_kv_heads, n_pos, head_size).to(acc)
    # [seqs, blocks, kv_heads, head_size, block_size] -> [seqs, kv_heads, positions, d]
    values = value_cache[blocks].permute(0, 2, 1, 4, 3).reshape(
        n_seqs, num_kv_heads, n_pos, head_size).to(acc)
    group = n_heads // num_kv_heads
    q = query.reshape(n_seqs, num_kv_heads, group, head_size).to(acc)
    logits = scale * (q @ keys.transpose(-1, -2))  # [seqs, kv_heads, group, positions]
    pos = torch.arange(n_pos, device=query.device)
    lens = seq_lens.long()[:, None]
    if alibi_slopes is not None:
        slopes = alibi_slopes.to(acc).reshape(1, num_kv_heads, group, 1)
        logits = logits + slopes * (pos[None, :] - lens + 1).to(acc)[:, None, None, :]
    masked = (pos[None, :] >= lens)[:, None, None, :]
    probs = torch.softmax(logits.masked_fill(masked, float("-inf")), dim=-1)
    out.copy_((probs @ values).reshape(n_seqs, n_heads, head_size))


def paged_attention_v1(out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor,
                       value_cache: torch.Tensor, num_kv_heads: int, scale: float,
                       block_tables: torch.Tensor, seq_lens: torch.Tensor, block_size: int,
                       max_seq_len: int, alibi_slopes: torch.Tensor | None, kv_cache_dtype: str,
                       k_scale: torch.Tensor, v_scale: torch.Tensor, tp_rank: int,
                       blocksparse_local_blocks: int, blocksparse_vert_stride: int,
                       blocksparse_block_size: int, blocksparse_head_sliding_step: int) -> None:
    if kv_cache_dtype != "auto" or blocksparse_vert_stride > 1:
        raise NotImplementedError("only kv_cache_dtype 'auto' without block sparsity is covered")
    _paged_attention(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables,
                     seq_lens, alibi_slopes)
