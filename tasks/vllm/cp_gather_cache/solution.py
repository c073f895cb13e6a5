"""Shipped solution for vLLM's cp_gather_cache: one Triton kernel, one pass.

The host cannot read cu_seq_lens (that would be a device-to-host copy), so the tiling is chosen
from what the shapes say: dst.size(0) / batch_size is the average sequence length when the
sequences fill dst. A program owns a group of BB consecutive sequences and one of NS splits of
their tokens, and works on tiles of BB x BT token rows (BT consecutive tokens of each sequence)
by BE entry elements:

- many short sequences (decoding contexts, one token each): BT = 1 and BB = 32, so a tile still
  gathers 32 entries instead of one program per token;
- few long sequences: BB = 1, BT = 32 and NS splits of each sequence, so that a single sequence
  still spreads over many programs.

Per tile row the program computes the token's position q = seq_starts[b] + i, loads its block
number from block_table (one load per row), and copies the entry: a contiguous run of the cache
and of dst, so loads and stores are coalesced whatever block it comes from. BE is a power of two
that covers the entry with little masking (128 for DeepSeek's 576 elements: 5 chunks, 640 lanes).
The loop over a group's tokens runs to the group's longest sequence, computed in the kernel.
Empty or negative-length sequences copy nothing. Offsets into the cache and dst are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cp_gather_kernel(src_ptr, dst_ptr, bt_ptr, cu_ptr, ss_ptr, batch, E, bs,
                      bt_s0, bt_s1, c_s0, c_s1, c_se, d_s0, d_se,
                      HAS_SS: tl.constexpr, NS: tl.constexpr, BB: tl.constexpr,
                      BT: tl.constexpr, BE: tl.constexpr):
    g = tl.program_id(0)
    split = tl.program_id(1)
    r = tl.arange(0, BB * BT)
    b = g * BB + r // BT
    j = r % BT
    live = b < batch
    start = tl.load(cu_ptr + b, mask=live, other=0)
    end = tl.load(cu_ptr + b + 1, mask=live, other=0)
    n = tl.maximum(end - start, 0)
    if HAS_SS:
        off = tl.load(ss_ptr + b, mask=live, other=0)
    else:
        off = tl.zeros_like(start)
    longest = tl.max(n, axis=0)
    for i0 in range(split * BT, longest, NS * BT):
        i = i0 + j
        ok = i < n
        q = off + i
        blk = tl.load(bt_ptr + b.to(tl.int64) * bt_s0 + (q // bs).to(tl.int64) * bt_s1,
                      mask=ok, other=0)
        src_row = blk.to(tl.int64) * c_s0 + (q % bs).to(tl.int64) * c_s1
        dst_row = (start + i).to(tl.int64) * d_s0
        for e0 in range(0, E, BE):
            e = e0 + tl.arange(0, BE)
            m = ok[:, None] & (e < E)[None, :]
            x = tl.load(src_ptr + src_row[:, None] + (e * c_se)[None, :], mask=m)
            tl.store(dst_ptr + dst_row[:, None] + (e * d_se)[None, :], x, mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _entry_tile(E: int, cap: int) -> int:
    """The largest power of two up to `cap` whose chunks cover E with at most 1/8 masked."""
    be = min(_pow2(E), cap)
    while be > 16 and triton.cdiv(E, be) * be * 8 > 9 * E:
        be //= 2
    return be


def _tiles(batch: int, rows: int, E: int, gpu: bool) -> tuple[int, int, int, int, int]:
    """(BB, BT, NS, BE, num_warps) for `batch` sequences filling about `rows` rows of dst."""
    avg = max(1, rows // max(batch, 1))
    if not gpu:
        # The interpreter runs programs one after another in numpy: few, large tiles.
        be = _entry_tile(E, 4096)
        bt = min(_pow2(avg), 256)
        return max(1, 256 // bt), bt, 1, be, 4
    be = _entry_tile(E, 1024)
    bt = min(_pow2(avg), 32)
    bb = max(1, 32 // bt)
    groups = triton.cdiv(batch, bb)
    # Enough splits of long sequences for about 1024 programs, no more than they have tiles.
    ns = max(1, min(triton.cdiv(avg, bt), triton.cdiv(1024, groups), 1024))
    return bb, bt, ns, be, 8 if bb * bt * be >= 4096 else 4


def cp_gather_cache(src_cache: torch.Tensor, dst: torch.Tensor, block_table: torch.Tensor,
                    cu_seq_lens: torch.Tensor, batch_size: int,
                    seq_starts: torch.Tensor | None) -> None:
    if src_cache.dim() < 3 or dst.dim() != src_cache.dim() - 1:
        raise RuntimeError("cp_gather_cache: src_cache must be [num_blocks, block_size, "
                           "ENTRY...] and dst [rows, ENTRY...]")
    if dst.shape[1:] != src_cache.shape[2:] or dst.dtype != src_cache.dtype:
        raise RuntimeError("cp_gather_cache: dst must have src_cache's entry shape and dtype")
    if block_table.dim() != 2:
        raise RuntimeError("cp_gather_cache: block_table must be [batch, max_blocks]")
    for name, t in (("cu_seq_lens", cu_seq_lens), ("seq_starts", seq_starts)):
        if t is not None and t.stride(0) != 1:
            raise RuntimeError(f"cp_gather_cache: {name} must be contiguous")
    nb, bs = src_cache.shape[0], src_cache.shape[1]
    rows = dst.shape[0]
    E = dst[0].numel() if rows else src_cache[0, 0].numel() if nb and bs else 0
    if batch_size <= 0 or E == 0 or rows == 0 or nb * bs == 0:
        return None
    # An entry is read and written as one run: view both as [.., E] (views, never copies, so
    # the writes land in dst).
    src = src_cache.view(nb, bs, E)
    out = dst.view(rows, E)
    bb, bt, ns, be, warps = _tiles(batch_size, rows, E, src.device.type != "cpu")
    ss = cu_seq_lens if seq_starts is None else seq_starts
    grid = (triton.cdiv(batch_size, bb), ns)
    _cp_gather_kernel[grid](src, out, block_table, cu_seq_lens, ss, batch_size, E, bs,
                            block_table.stride(0), block_table.stride(1), src.stride(0),
                            src.stride(1), src.stride(2), out.stride(0), out.stride(1),
                            HAS_SS=seq_starts is not None, NS=ns, BB=bb, BT=bt, BE=be,
                            num_warps=warps)
    return None
