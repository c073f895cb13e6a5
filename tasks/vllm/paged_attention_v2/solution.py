"""Shipped solution for vLLM's paged_attention_v2: split-KV ("flash decoding") attention over
the paged cache, in one Triton kernel, or two when a sequence is split. vLLM's v2 always splits
sequences into partitions of 512 tokens and uses the caller's exp_sums, max_logits and tmp_out
as scratch; this task keeps those unchanged, so the split (sized to fill the GPU) and its
float32 scratch are this module's own.

A program owns one sequence, one KV head and one chunk of the sequence's tokens, and computes
all the query heads that share the KV head (grouped-query attention: each key and value is read
once for the whole group). The group is a [GP, head_size] tile (GP >= 16, padded with masked
rows) so that both products are tensor-core dots: q @ K^T over a tile of BN tokens, then the
probabilities @ V, with an online softmax (running max and sum) in float32. A tile of BN tokens
is gathered through the block table: token i sits at position i % block_size of block
block_tables[s, i // block_size]; a key tile is read as [head_size, BN] straight from the
[.., head_size / x, block_size, x] layout (x contiguous elements per 16 bytes), a value tile as
[BN, head_size] from [.., head_size, block_size].

When the (sequence, KV head) pairs alone cannot fill the GPU, each sequence is cut into chunks
of CHUNK tokens; every chunk writes its running max, sum and unnormalised output to float32
scratch, and a second kernel merges the chunks of each (sequence, head). Otherwise the first
kernel normalises and writes `out` directly. The probabilities are rounded to the cache dtype
for the second product, as vLLM's kernel does; everything else accumulates in float32.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_chunk_kernel(out_ptr, m_ptr, l_ptr, acc_ptr, q_ptr, kc_ptr, vc_ptr, bt_ptr, sl_ptr,
                       slope_ptr, scale, G, D, CHUNK, SPLITS, H,
                       o_s0, o_s1, q_s0, q_s1, kc_s0, kc_s1, kc_s2, kc_s3, kc_s4,
                       vc_s0, vc_s1, vc_s2, vc_s3, bt_s0,
                       BS: tl.constexpr, X: tl.constexpr, GP: tl.constexpr, DP: tl.constexpr,
                       BN: tl.constexpr, HAS_ALIBI: tl.constexpr, SINGLE: tl.constexpr,
                       PREC: tl.constexpr, UPCAST: tl.constexpr):
    s = tl.program_id(0).to(tl.int64)
    kvh = tl.program_id(1).to(tl.int64)
    sp = tl.program_id(2)
    seq_len = tl.load(sl_ptr + s)
    start = sp * CHUNK
    end = tl.minimum(start + CHUNK, seq_len)
    g = tl.arange(0, GP)
    hq = kvh * G + g
    g_ok = g < G
    d = tl.arange(0, DP)
    d_ok = d < D
    q = tl.load(q_ptr + s * q_s0 + hq[:, None] * q_s1 + d[None, :],
                mask=g_ok[:, None] & d_ok[None, :], other=0.0)
    if HAS_ALIBI:
        slope = tl.load(slope_ptr + hq, mask=g_ok, other=0.0).to(tl.float32)
    m = tl.full([GP], float("-inf"), tl.float32)
    l = tl.zeros([GP], tl.float32)
    acc = tl.zeros([GP, DP], tl.float32)
    k_col = kvh * kc_s1 + (d // X) * kc_s2 + (d % X) * kc_s4  # [DP]
    v_col = kvh * vc_s1 + d * vc_s2  # [DP]
    for t0 in range(start, end, BN):
        tok = t0 + tl.arange(0, BN)
        t_ok = tok < end
        blk = tl.load(bt_ptr + s * bt_s0 + tok // BS, mask=t_ok, other=0).to(tl.int64)
        pos = tok % BS
        k = tl.load(kc_ptr + (blk * kc_s0 + pos * kc_s3)[None, :] + k_col[:, None],
                    mask=d_ok[:, None] & t_ok[None, :], other=0.0)  # [DP, BN]
        if UPCAST:
            # CPU interpreter only: its tl.dot mishandles bfloat16 operands; the float32
            # products of 16-bit values are exact, so this changes nothing
            qk = tl.dot(q.to(tl.float32), k.to(tl.float32), input_precision=PREC)
        else:
            qk = tl.dot(q, k, input_precision=PREC)
        qk = qk * scale  # [GP, BN]
        if HAS_ALIBI:
            qk += slope[:, None] * (tok - seq_len + 1).to(tl.float32)[None, :]
        qk = tl.where(t_ok[None, :], qk, float("-inf"))
        m_new = tl.maximum(m, tl.max(qk, axis=1))
        alpha = tl.exp(m - m_new)
        p = tl.exp(qk - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        v = tl.load(vc_ptr + (blk * vc_s0 + pos * vc_s3)[:, None] + v_col[None, :],
                    mask=t_ok[:, None] & d_ok[None, :], other=0.0)  # [BN, DP]
        p = p.to(v.dtype)
        if UPCAST:
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float32), v.to(tl.float32),
                                                input_precision=PREC)
        else:
            acc = acc * alpha[:, None] + tl.dot(p, v, input_precision=PREC)
        m = m_new
    if SINGLE:
        o = acc / l[:, None]
        tl.store(out_ptr + s * o_s0 + hq[:, None] * o_s1 + d[None, :],
                 o.to(out_ptr.dtype.element_ty), mask=g_ok[:, None] & d_ok[None, :])
    else:
        # Chunks past the sequence's end write nothing; the merge reads only the others.
        live = g_ok & (start < seq_len)
        row = (s * H + hq) * SPLITS + sp
        tl.store(m_ptr + row, m, mask=live)
        tl.store(l_ptr + row, l, mask=live)
        tl.store(acc_ptr + row[:, None] * D + d[None, :], acc, mask=live[:, None] & d_ok[None, :])


@triton.jit
def _merge_kernel(out_ptr, m_ptr, l_ptr, acc_ptr, sl_ptr, D, CHUNK, SPLITS, H, o_s0, o_s1,
                  BSP: tl.constexpr, DP: tl.constexpr):
    s = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1).to(tl.int64)
    seq_len = tl.load(sl_ptr + s)
    n = (seq_len + CHUNK - 1) // CHUNK
    i = tl.arange(0, BSP)
    i_ok = i < n
    row = (s * H + h) * SPLITS + i
    mi = tl.load(m_ptr + row, mask=i_ok, other=float("-inf"))
    li = tl.load(l_ptr + row, mask=i_ok, other=0.0)
    w = tl.where(i_ok, tl.exp(mi - tl.max(mi, axis=0)), 0.0)
    d = tl.arange(0, DP)
    d_ok = d < D
    acc = tl.load(acc_ptr + row[:, None] * D + d[None, :], mask=i_ok[:, None] & d_ok[None, :],
                  other=0.0)
    o = tl.sum(w[:, None] * acc, axis=0) / tl.sum(w * li, axis=0)
    tl.store(out_ptr + s * o_s0 + h * o_s1 + d, o.to(out_ptr.dtype.element_ty), mask=d_ok)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _plan(n_seqs: int, n_kv: int, max_seq_len: int, head_size: int, device: torch.device):
    """(BN, CHUNK, SPLITS): the token tile, and how each sequence is cut into chunks."""
    if device.type == "cpu":
        # The interpreter runs programs one at a time in numpy: large tiles; sequences are cut
        # every 512 tokens, so that both kernels are exercised.
        bn, chunk = 256, 512
    else:
        bn = 64 if head_size <= 128 else 32
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        # Enough programs for four per SM, but no chunk shorter than four tiles.
        splits = min(triton.cdiv(4 * sms, max(1, n_seqs * n_kv)),
                     triton.cdiv(max_seq_len, 4 * bn))
        chunk = triton.cdiv(triton.cdiv(max_seq_len, max(1, splits)), bn) * bn
    return bn, chunk, max(1, triton.cdiv(max_seq_len, chunk))


def _paged_attention(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables,
                     seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype,
                     blocksparse_vert_stride, name):
    if kv_cache_dtype != "auto" or blocksparse_vert_stride > 1:
        raise NotImplementedError(f"{name}: only kv_cache_dtype 'auto' without block sparsity")
    n_seqs, n_heads, head_size = query.shape
    nb, n_kv, chunks, bs, x = key_cache.shape
    if (n_kv != num_kv_heads or n_heads % n_kv or bs != block_size or chunks * x != head_size
            or list(value_cache.shape) != [nb, n_kv, head_size, bs]):
        raise ValueError(f"{name}: caches {list(key_cache.shape)} / {list(value_cache.shape)} do "
                         f"not fit query {list(query.shape)}, {num_kv_heads} KV heads, block "
                         f"size {block_size}")
    if key_cache.dtype != query.dtype or value_cache.dtype != query.dtype:
        raise ValueError(f"{name}: 'auto' needs caches of the query dtype")
    if n_seqs == 0 or n_heads == 0 or max_seq_len <= 0:
        return None
    if out.shape != query.shape or out.stride(2) != 1:
        raise ValueError(f"{name}: out must be [num_seqs, num_heads, head_size] with contiguous "
                         "heads")
    if query.stride(2) != 1:
        query = query.contiguous()
    if block_tables.stride(1) != 1:
        block_tables = block_tables.contiguous()
    if seq_lens.stride(0) != 1:
        seq_lens = seq_lens.contiguous()
    group = n_heads // n_kv
    gp, dp = max(16, _pow2(group)), max(16, _pow2(head_size))
    bn, chunk, splits = _plan(n_seqs, n_kv, max_seq_len, head_size, query.device)
    cpu = query.device.type == "cpu"
    prec = "ieee" if query.dtype == torch.float32 or cpu else "tf32"
    slopes = alibi_slopes if alibi_slopes is not None else seq_lens
    single = splits == 1
    if single:
        m_buf = l_buf = acc_buf = out
    else:
        m_buf = torch.empty((n_seqs, n_heads, splits), dtype=torch.float32, device=query.device)
        l_buf = torch.empty_like(m_buf)
        acc_buf = torch.empty((n_seqs, n_heads, splits, head_size), dtype=torch.float32,
                              device=query.device)
    _attn_chunk_kernel[(n_seqs, n_kv, splits)](
        out, m_buf, l_buf, acc_buf, query, key_cache, value_cache, block_tables, seq_lens,
        slopes, float(scale), group, head_size, chunk, splits, n_heads,
        out.stride(0), out.stride(1), query.stride(0), query.stride(1), *key_cache.stride(),
        *value_cache.stride(), block_tables.stride(0),
        BS=bs, X=x, GP=gp, DP=dp, BN=bn, HAS_ALIBI=alibi_slopes is not None, SINGLE=single,
        PREC=prec, UPCAST=cpu, num_warps=4)
    if not single:
        _merge_kernel[(n_seqs, n_heads)](
            out, m_buf, l_buf, acc_buf, seq_lens, head_size, chunk, splits, n_heads,
            out.stride(0), out.stride(1), BSP=_pow2(splits), DP=dp, num_warps=4)
    return None


def paged_attention_v2(out: torch.Tensor, exp_sums: torch.Tensor, max_logits: torch.Tensor,
                       tmp_out: torch.Tensor, query: torch.Tensor, key_cache: torch.Tensor,
                       value_cache: torch.Tensor, num_kv_heads: int, scale: float,
                       block_tables: torch.Tensor, seq_lens: torch.Tensor, block_size: int,
                       max_seq_len: int, alibi_slopes: torch.Tensor | None, kv_cache_dtype: str,
                       k_scale: torch.Tensor, v_scale: torch.Tensor, tp_rank: int,
                       blocksparse_local_blocks: int, blocksparse_vert_stride: int,
                       blocksparse_block_size: int, blocksparse_head_sliding_step: int) -> None:
    # vLLM's scratch arguments must stay unchanged here; the split plan allocates its own.
    return _paged_attention(out, query, key_cache, value_cache, num_kv_heads, scale,
                            block_tables, seq_lens, block_size, max_seq_len, alibi_slopes,
                            kv_cache_dtype, blocksparse_vert_stride, "paged_attention_v2")
