"""Reference for vLLM's convert_vertical_slash_indexes (torch.ops._C.convert_vertical_slash_indexes;
csrc/attention/vertical_slash_index.cu: convert_vertical_slash_indexes_kernel, save_blocks):
our own torch code, run by the worker on the native inputs.

The op turns MInference's vertical-slash sparsity pattern of every (batch, head) into the
block-sparse index lists its sparse flash-attention kernel reads. For every query row block m
(rows [m * M, m * M + M), M = block_size_M) with m * M < q_seqlens[b], it walks the sorted
vertical columns (ascending) and slash diagonals (descending) of (b, h) together, exactly as
vLLM's per-row state machine does, and writes:
- block_offset[b, h, m, :block_count[b, h, m]]: the key-block starts (multiples of
  block_size_N from a slash range's start) covered by the slash diagonals, clipped at kv_seqlen;
- column_index[b, h, m, :column_count[b, h, m]]: the vertical columns not already covered by a
  slash range, in the order they are met.
Entries past the counts, and rows with m * M >= q_seqlens[b], are left as they were.

The state machine is run for all rows at once: each step of the loop advances every row that
has not finished by one transition of vLLM's per-row loop (one vertical or one slash consumed,
or the finish), so the result is the kernel's, row by row.

Integers, compared exactly.
"""

import torch


def _save(buf, cnt, mask, start, end, kv, bn):
    """save_blocks for the rows in mask: start, start + bn, ... below min(end, kv) at cnt.."""
    end = torch.minimum(end, kv)
    n = torch.where(mask & (start < kv) & (end > start), (end - start + bn - 1) // bn, 0)
    width = int(n.max()) if n.numel() else 0
    if width > 0:
        i = torch.arange(width, device=buf.device)
        pos = cnt[:, None] + i[None, :]
        ok = i[None, :] < n[:, None]
        if bool((pos[ok] >= buf.shape[1]).any()):
            raise ValueError("convert_vertical_slash_indexes: block_offset capacity exceeded")
        rows = torch.arange(buf.shape[0], device=buf.device)[:, None].expand_as(pos)
        buf[rows[ok], pos[ok]] = (start[:, None] + i[None, :] * bn).expand_as(pos)[ok]
    return cnt + n


def convert_vertical_slash_indexes(
    block_count, block_offset, column_count, column_index, q_seqlens, kv_seqlens,
    vertical_indexes, slash_indexes, context_size, block_size_M, block_size_N, causal,
):
    B, H, nnz_s = slash_indexes.shape
    nnz_v = vertical_indexes.shape[2]
    rows = (context_size + block_size_M - 1) // block_size_M
    dev = slash_indexes.device
    M, N = block_size_M, block_size_N
    i64 = torch.int64

    # One lane per (b, h, m); keep the lanes whose row block starts before q_seqlen.
    b_of = torch.arange(B, device=dev).repeat_interleave(H * rows)
    h_of = torch.arange(H, device=dev).repeat_interleave(rows).repeat(B)
    m_of = torch.arange(rows, device=dev).repeat(B * H)
    q = q_seqlens.to(i64)[b_of]
    kv = kv_seqlens.to(i64)[b_of]
    start_m = m_of * M
    live = start_m < q
    b_of, h_of, m_of, q, kv, start_m = (t[live] for t in (b_of, h_of, m_of, q, kv, start_m))
    L = b_of.numel()
    if L == 0:
        return None
    end_m = start_m + M
    base = end_m + (kv - q if causal else kv)  # where the diagonal of the row block's end lies
    vert = vertical_indexes.to(i64)[b_of, h_of]  # [L, nnz_v]
    slash = slash_indexes.to(i64)[b_of, h_of]  # [L, nnz_s]
    lanes = torch.arange(L, device=dev)

    # Skip the leading slashes at or beyond the diagonal (at least one is always read).
    below = slash < base[:, None]
    first = torch.where(below.any(1), below.to(i64).argmax(1), nnz_s)
    j = torch.clamp(first, max=nnz_s - 1)
    s = j + 1
    s_idx = slash[lanes, j]
    has_slash = ~(s_idx > base)
    s_idx = torch.clamp(base - s_idx, min=M)
    r_start = torch.where(has_slash, s_idx - M, base if causal else kv)
    r_end = torch.where(has_slash, s_idx, (base if causal else kv) + N)
    v = torch.ones(L, dtype=i64, device=dev)
    v_idx = vert[:, 0].clone()

    cols = torch.zeros(L, nnz_v, dtype=i64, device=dev)
    blks = torch.zeros(L, nnz_s, dtype=i64, device=dev)
    col_cnt = torch.zeros(L, dtype=i64, device=dev)
    blk_cnt = torch.zeros(L, dtype=i64, device=dev)
    finished = torch.zeros(L, dtype=torch.bool, device=dev)
    done = torch.zeros(L, dtype=torch.bool, device=dev)

    while not bool(done.all()):
        act = ~done
        # Branch 1: the next vertical lies before the current range's end.
        a = act & (v_idx < r_end)
        w = a & (v_idx < r_start)
        if bool(w.any()):
            cols[lanes[w], col_cnt[w]] = v_idx[w]
        col_cnt = col_cnt + w
        more = v < nnz_v
        nxt = torch.where(more, vert[lanes, torch.clamp(v, max=nnz_v - 1)], base + N)
        v_idx = torch.where(a, nxt, v_idx)
        v = torch.where(a & more, v + 1, v)

        # Branch 2: take the next slash, or finish.
        bb = act & ~a
        s_c = torch.clamp(s, max=nnz_s - 1)
        cont = s < nnz_s
        if not causal:
            cont = cont & (slash[lanes, s_c] >= start_m)
        b1 = bb & cont
        s_idx = torch.where(b1, torch.clamp(base - slash[lanes, s_c], min=M), s_idx)
        s = torch.where(b1, s + 1, s)
        b2 = bb & ~cont
        fin = v == nnz_v
        if causal:
            fin = fin | (v_idx > r_start)
        b2f = b2 & fin
        b2e = b2 & ~fin
        if not causal:
            lastv = b2f & (v == nnz_v) & (v_idx < kv)
            if bool(lastv.any()):
                cols[lanes[lastv], col_cnt[lastv]] = v_idx[lastv]
            col_cnt = col_cnt + lastv
        finished = finished | b2e

        # The range bookkeeping after a slash was taken.
        c = (b1 | b2e) & ~finished
        x = c & (s_idx > r_end + M)
        y = c & ~x & (s_idx > r_end)

        # At most one save per lane per step: the finish, the non-causal switch, a new range.
        sv = b2f | x | (b2e if not causal else torch.zeros_like(b2e))
        blk_cnt = _save(blks, blk_cnt, sv, r_start, r_end, kv, N)

        new_start = base if causal else kv
        r_start = torch.where(b2e, new_start, r_start)
        r_end = torch.where(b2e, new_start + N, r_end)
        r_start = torch.where(x, s_idx - M, r_start)
        r_end = torch.where(x, s_idx, torch.where(y, r_end + M, r_end))
        done = done | b2f

    if int(col_cnt.max()) > nnz_v:
        raise ValueError("convert_vertical_slash_indexes: column_index capacity exceeded")
    block_count[b_of, h_of, m_of] = blk_cnt.to(block_count.dtype)
    column_count[b_of, h_of, m_of] = col_cnt.to(column_count.dtype)
    keep_b = torch.arange(nnz_s, device=dev)[None, :] < blk_cnt[:, None]
    keep_c = torch.arange(nnz_v, device=dev)[None, :] < col_cnt[:, None]
    bo = block_offset[b_of, h_of, m_of]
    block_offset[b_of, h_of, m_of] = torch.where(keep_b, blks.to(bo.dtype), bo)
    ci = column_index[b_of, h_of, m_of]
    column_index[b_of, h_of, m_of] = torch.where(keep_c, cols.to(ci.dtype), ci)
    return None

