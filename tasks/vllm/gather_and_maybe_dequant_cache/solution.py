"""Shipped solution for vLLM's gather_and_maybe_dequant_cache ("auto" cache dtype): one Triton
kernel, one pass.

Every token writes exactly one row of dst, dst[t], so the work splits over tokens with no
conflicts: a program owns BT consecutive tokens. Per token it loads its sequence
b = token_to_seq[t] and that sequence's bounds from cu_seq_lens, drops a token outside
[cu_seq_lens[b], cu_seq_lens[b + 1]), computes the position q = t - start (+ seq_starts[b]) and
loads one block number from block_table. It then copies the token's entry (576 or 320
contiguous elements of the cache, the same in dst) in chunks of BE elements: a tile of BT rows
by BE elements whose loads and stores are coalesced whichever block each row comes from. A
dropped token costs no traffic (its loads are masked). Offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(src_ptr, dst_ptr, bt_ptr, cu_ptr, t2s_ptr, ss_ptr, n_tok, E, bs,
                   bt_s0, bt_s1, c_s0, c_s1, c_se, d_s0, d_se,
                   HAS_SS: tl.constexpr, BT: tl.constexpr, BE: tl.constexpr):
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    live = t < n_tok
    b = tl.load(t2s_ptr + t, mask=live, other=0)
    start = tl.load(cu_ptr + b, mask=live, other=0)
    end = tl.load(cu_ptr + b + 1, mask=live, other=0)
    ok = live & (t >= start) & (t < end)
    q = t - start
    if HAS_SS:
        q += tl.load(ss_ptr + b, mask=ok, other=0)
    blk = tl.load(bt_ptr + b.to(tl.int64) * bt_s0 + (q // bs).to(tl.int64) * bt_s1,
                  mask=ok, other=0)
    src_row = blk.to(tl.int64) * c_s0 + (q % bs).to(tl.int64) * c_s1
    dst_row = t.to(tl.int64) * d_s0
    for e0 in range(0, E, BE):
        e = e0 + tl.arange(0, BE)
        m = ok[:, None] & (e < E)[None, :]
        x = tl.load(src_ptr + src_row[:, None] + (e * c_se)[None, :], mask=m)
        tl.store(dst_ptr + dst_row[:, None] + (e * d_se)[None, :], x, mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _entry_chunk(E: int) -> int:
    """A power of two whose chunks cover E with little masking: 64 for 320 (5 x 64) and for
    576 (9 x 64), so that no lane is idle."""
    be = 256
    while be > 16 and E % be != 0:
        be //= 2
    return be


def gather_and_maybe_dequant_cache(src_cache: torch.Tensor, dst: torch.Tensor,
                                   block_table: torch.Tensor, cu_seq_lens: torch.Tensor,
                                   token_to_seq: torch.Tensor, num_tokens: int,
                                   kv_cache_dtype: str, scale: torch.Tensor,
                                   seq_starts: torch.Tensor | None) -> None:
    if kv_cache_dtype != "auto":
        raise NotImplementedError("gather_and_maybe_dequant_cache: kv_cache_dtype "
                                  f"{kv_cache_dtype!r} is not supported (only 'auto')")
    if src_cache.dtype != dst.dtype:
        raise RuntimeError("gather_and_maybe_dequant_cache: 'auto' needs dst of the cache dtype")
    if src_cache.dim() != 3 or dst.dim() != 2 or dst.shape[1] != src_cache.shape[2]:
        raise RuntimeError("gather_and_maybe_dequant_cache: src_cache must be [num_blocks, "
                           "block_size, entry] and dst [rows, entry], got "
                           f"{list(src_cache.shape)} and {list(dst.shape)}")
    E = src_cache.shape[2]
    n = int(num_tokens)
    if n <= 0 or E == 0:
        return None
    t2s = token_to_seq if token_to_seq.stride(0) == 1 else token_to_seq.contiguous()
    cu = cu_seq_lens if cu_seq_lens.stride(0) == 1 else cu_seq_lens.contiguous()
    ss = seq_starts
    if ss is not None and ss.stride(0) != 1:
        ss = ss.contiguous()
    gpu = dst.device.type != "cpu"
    if gpu:
        bt, be, warps = 8, _entry_chunk(E), 4
    else:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        bt, be, warps = min(_pow2(n), 128), _pow2(E), 4
    grid = (triton.cdiv(n, bt),)
    _gather_kernel[grid](src_cache, dst, block_table, cu, t2s, t2s if ss is None else ss, n, E,
                         src_cache.shape[1], block_table.stride(0), block_table.stride(1),
                         *src_cache.stride(), *dst.stride(), HAS_SS=ss is not None, BT=bt, BE=be,
                         num_warps=warps)
    return None
