"""Reference for vLLM's gather_and_maybe_dequant_cache
(torch.ops._C_cache_ops.gather_and_maybe_dequant_cache; csrc/cache_kernels.cu): our own torch
code, run by the worker on float64 copies (values) and on the native inputs (structure and the
GPU baseline).

The op reads the cached context of a batch of sequences out of the paged KV cache into one
packed tensor, token by token (vLLM's MLA attention uses it for chunked prefill).
src_cache is [num_blocks, block_size, entry] and dst is [rows, entry], with entry 576 or 320
(vLLM accepts no other). For every token t < num_tokens, b = token_to_seq[t] names its sequence,
whose tokens are the dst rows [cu_seq_lens[b], cu_seq_lens[b + 1]). The token is at position
q = t - cu_seq_lens[b] + o of its sequence (o = seq_starts[b], 0 when seq_starts is None), which
lives at position q % block_size of cache block block_table[b, q // block_size]; that entry is
copied to dst[t]. A token outside its sequence's rows writes nothing: vLLM skips a token at or
past the end, and never builds one before the start (vLLM's kernel would read at a negative
position there; we define it as skipped). Rows of dst that no token writes keep their values.
Each token writes only its own row, so the result does not depend on any order. block_table,
cu_seq_lens, token_to_seq and seq_starts are int32. The op returns nothing and writes only dst.

kv_cache_dtype "auto" copies the values as they are (dst has the cache's dtype) and scale is
not used. The fp8 variants ("fp8", "fp8_e4m3", "fp8_e5m2": an 8-bit cache multiplied by scale
while it is converted to dst's dtype) are not covered by this task.

Tolerance: the values are copies, so the multipliers are 1e-6 (exact in effect).
"""

import torch


def gather_and_maybe_dequant_cache(src_cache: torch.Tensor, dst: torch.Tensor,
                                   block_table: torch.Tensor, cu_seq_lens: torch.Tensor,
                                   token_to_seq: torch.Tensor, num_tokens: int,
                                   kv_cache_dtype: str, scale: torch.Tensor,
                                   seq_starts: torch.Tensor | None) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"kv_cache_dtype {kv_cache_dtype!r}: only 'auto' is covered")
    block_size = src_cache.shape[1]
    t = torch.arange(num_tokens, device=dst.device)
    b = token_to_seq[:num_tokens].long()
    start = cu_seq_lens.long()[b]
    end = cu_seq_lens.long()[b + 1]
    inside = (t >= start) & (t < end)
    t, b, start = t[inside], b[inside], start[inside]
    q = t - start
    if seq_starts is not None:
        q = q + seq_starts.long()[b]
    blocks = block_table.long()[b, q // block_size]
    dst[t] = src_cache[blocks, q % block_size]
