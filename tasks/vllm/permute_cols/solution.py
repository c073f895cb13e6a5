"""Shipped solution for vLLM's permute_cols: one Triton gather kernel.

A program owns a [BM rows, BK columns] tile of the output. It loads its BK entries of `perm`
once and reuses them for all BM rows, gathers A[rows, perm[cols]] (scattered within a row, but a
row of at most a few tens of KB stays in L2 while the programs of its row block sweep it: the
column block is the fastest-varying program index) and stores the tile with coalesced writes.
A is read through its strides, with 64-bit offsets (M * K can pass 2**31).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _permute_cols_kernel(a_ptr, perm_ptr, out_ptr, M, K, sa_m, sa_k, sp, so_m, n_col_blocks,
                         BM: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    pid_m = pid // n_col_blocks
    pid_k = pid - pid_m * n_col_blocks
    rows = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    cols = pid_k.to(tl.int64) * BK + tl.arange(0, BK)
    c_ok = cols < K
    src = tl.load(perm_ptr + cols * sp, mask=c_ok, other=0).to(tl.int64)
    mask = (rows < M)[:, None] & c_ok[None, :]
    vals = tl.load(a_ptr + rows[:, None] * sa_m + (src * sa_k)[None, :], mask=mask)
    tl.store(out_ptr + rows[:, None] * so_m + cols[None, :], vals, mask=mask)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _tiles(M, K, gpu):
    """(BM, BK, num_warps)."""
    if not gpu:
        # The interpreter runs programs one at a time in numpy: few, large tiles.
        bk = min(_pow2(K), 16384)
        return min(_pow2(M), max(1, 65536 // bk)), bk, 4
    # 4096-element tiles (16 per thread at 8 warps); a row segment of up to 1024 columns, with
    # several rows per tile so that each loaded perm entry serves several gathers.
    bk = min(_pow2(K), 1024)
    bm = min(_pow2(M), max(1, 4096 // bk))
    return bm, bk, 8 if bm * bk >= 4096 else 4


def permute_cols(A: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    if A.dim() != 2 or perm.dim() != 1 or perm.shape[0] != A.shape[1]:
        raise ValueError(f"permute_cols: A must be [M, K] and perm [K], got A {list(A.shape)} "
                         f"and perm {list(perm.shape)}")
    M, K = A.shape
    out = torch.empty((M, K), dtype=A.dtype, device=A.device)
    if out.numel() == 0:
        return out
    bm, bk, warps = _tiles(M, K, A.device.type != "cpu")
    n_col_blocks = triton.cdiv(K, bk)
    grid = (triton.cdiv(M, bm) * n_col_blocks,)
    _permute_cols_kernel[grid](A, perm, out, M, K, A.stride(0), A.stride(1), perm.stride(0),
                               out.stride(0), n_col_blocks, BM=bm, BK=bk, num_warps=warps)
    return out
