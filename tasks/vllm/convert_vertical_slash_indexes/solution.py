"""Shipped solution for vLLM's convert_vertical_slash_indexes: one Triton kernel.

One program per (batch, head, query row block), as vLLM's kernel has one thread per row block:
the walk over the ascending verticals and descending slashes is inherently sequential (each
step depends on the range the previous ones built), so a program runs it as a scalar loop and
stores each column index and block start as it is produced. Rows whose block starts at or past
q_seqlen return at once and leave their outputs untouched.

The int parameters are widened to int64 by multiplying with an int64 one rather than with
`.to(tl.int64)`: the GPU launcher specialises an int argument equal to 1 (nnz_v = 1, say) into
a plain Python int constexpr, which has no `.to` (the interpreter passes it as a tensor).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cvsi_kernel(bc_ptr, bo_ptr, cc_ptr, ci_ptr, q_ptr, kv_ptr, v_ptr, s_ptr, H, ROWS,
                 NNZ_V, NNZ_S, BM, BN, CAUSAL: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    bh = tl.program_id(1).to(tl.int64)
    b = bh // H
    q = tl.load(q_ptr + b).to(tl.int64)
    kv = tl.load(kv_ptr + b).to(tl.int64)
    # Widen the int parameters by multiplying with an int64 one, not with .to(): on the GPU an
    # int argument equal to 1 is specialised into a Python int constexpr, which has no .to.
    one = tl.full((), 1, tl.int64)
    M = BM * one
    N = BN * one
    nv = NNZ_V * one
    ns = NNZ_S * one
    start_m = m * M
    if start_m < q:
        end_m = start_m + M
        if CAUSAL:
            base = end_m + kv - q
            empty = base
        else:
            base = end_m + kv
            empty = kv
        vp = v_ptr + bh * nv
        sp = s_ptr + bh * ns
        row = bh * ROWS + m
        bo = bo_ptr + row * ns
        ci = ci_ptr + row * nv
        col_cnt = tl.zeros((), tl.int64)
        blk_cnt = tl.zeros((), tl.int64)
        v = tl.full((), 1, tl.int64)
        s = tl.full((), 1, tl.int64)
        v_idx = tl.load(vp).to(tl.int64)
        s_idx = tl.load(sp).to(tl.int64)
        while (s_idx >= base) & (s < ns):
            s_idx = tl.load(sp + s).to(tl.int64)
            s += 1
        has_slash = s_idx <= base
        s_idx = tl.maximum(base - s_idx, M)
        r_start = s_idx - M
        r_end = s_idx
        if not has_slash:
            r_start = empty
            r_end = empty + N
        finished = tl.zeros((), tl.int1)
        done = tl.zeros((), tl.int1)
        while not done:
            if v_idx < r_end:
                if v_idx < r_start:
                    tl.store(ci + col_cnt, v_idx.to(tl.int32))
                    col_cnt += 1
                if v < nv:
                    v_idx = tl.load(vp + v).to(tl.int64)
                    v += 1
                else:
                    v_idx = base + N
            else:
                cont = s < ns
                if not CAUSAL:
                    if cont:
                        cont = tl.load(sp + s).to(tl.int64) >= start_m
                save = False
                if cont:
                    s_idx = tl.maximum(base - tl.load(sp + s).to(tl.int64), M)
                    s += 1
                else:
                    fin = v == nv
                    if CAUSAL:
                        fin = fin | (v_idx > r_start)
                    if fin:
                        if not CAUSAL:
                            if (v == nv) & (v_idx < kv):
                                tl.store(ci + col_cnt, v_idx.to(tl.int32))
                                col_cnt += 1
                        save = True
                        done = True
                    else:
                        if not CAUSAL:
                            save = True
                        finished = True
                new_start = r_start
                new_end = r_end
                if not finished:
                    if s_idx > r_end + M:
                        save = True
                        new_start = s_idx - M
                        new_end = s_idx
                    elif s_idx > r_end:
                        new_end = r_end + M
                elif not done:
                    new_start = empty
                    new_end = empty + N
                if save:
                    # save_blocks: block starts from r_start, clipped at kv_seqlen.
                    idx = r_start
                    stop = tl.minimum(r_end, kv)
                    while idx < stop:
                        tl.store(bo + blk_cnt, idx.to(tl.int32))
                        blk_cnt += 1
                        idx += N
                r_start = new_start
                r_end = new_end
        tl.store(bc_ptr + row, blk_cnt.to(tl.int32))
        tl.store(cc_ptr + row, col_cnt.to(tl.int32))


def convert_vertical_slash_indexes(
    block_count, block_offset, column_count, column_index, q_seqlens, kv_seqlens,
    vertical_indexes, slash_indexes, context_size, block_size_M, block_size_N, causal,
):
    B, H, nnz_s = slash_indexes.shape
    nnz_v = vertical_indexes.shape[2]
    rows = (context_size + block_size_M - 1) // block_size_M
    for t in (block_count, block_offset, column_count, column_index, q_seqlens, kv_seqlens,
              vertical_indexes, slash_indexes):
        if t.dtype != torch.int32 or not t.is_contiguous():
            raise ValueError("convert_vertical_slash_indexes: tensors must be contiguous int32")
    if B * H * rows == 0:
        return None
    _cvsi_kernel[(rows, B * H)](
        block_count, block_offset, column_count, column_index, q_seqlens, kv_seqlens,
        vertical_indexes, slash_indexes, H, rows, nnz_v, nnz_s, block_size_M, block_size_N,
        CAUSAL=bool(causal),
    )
    return None
