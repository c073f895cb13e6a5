"""Shipped solution for cublasSdgmm: C = diag(x) A or A diag(x), one Triton launch.

Each program scales one BM x BN tile of the column-major m x n matrix: it loads the tile of A
(rows contiguous), the BM (LEFT) or BN (RIGHT) entries of the diagonal, and stores the products
into C's tile; the gap rows between m and ld are never touched. The tiles are numbered on a 1-D
grid (no 65535 limit on the second grid axis). The diagonal vector follows the DGMM increment
rule: element j at base + j*incx with base = (k-1)*|incx| for incx < 0, and incx = 0 repeats
x[0]. Offsets are 64-bit (8192 x 8192 matrices with padding pass 2**31 bytes, not elements,
but an ld * n product can).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _dgmm_kernel(a_ptr, x_ptr, c_ptr, m, n, lda, ldc, incx, base_x, grid_m,
                 LEFT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    pid_m = pid % grid_m
    pid_n = pid // grid_m
    rows = pid_m.to(tl.int64) * BM + tl.arange(0, BM)
    cols = pid_n.to(tl.int64) * BN + tl.arange(0, BN)
    rmask = rows < m
    cmask = cols < n
    mask = rmask[:, None] & cmask[None, :]
    a = tl.load(a_ptr + rows[:, None] + cols[None, :] * lda, mask=mask)
    if LEFT:
        d = tl.load(x_ptr + base_x + rows * incx, mask=rmask)
        c = d[:, None] * a
    else:
        d = tl.load(x_ptr + base_x + cols * incx, mask=cmask)
        c = a * d[None, :]
    tl.store(c_ptr + rows[:, None] + cols[None, :] * ldc, c, mask=mask)


def cublasSdgmm(mode: int, m: int, n: int, A: torch.Tensor, lda: int, x: torch.Tensor,
                incx: int, C: torch.Tensor, ldc: int) -> None:
    if mode not in (0, 1):
        raise ValueError(f"cublasSdgmm: invalid cublasSideMode_t {mode}")
    if m <= 0 or n <= 0:
        return None
    if lda < m or ldc < m:
        raise ValueError("cublasSdgmm: lda and ldc must be >= m")
    k = m if mode == 0 else n
    base_x = (k - 1) * -incx if incx < 0 else 0
    gpu = C.is_cuda
    if gpu:
        bm = min(128, triton.next_power_of_2(m))
        bn = max(16, 8192 // bm)
        warps = 8
    else:
        bm = min(512, triton.next_power_of_2(m))
        bn = min(max(1, 65536 // bm), triton.next_power_of_2(n))
        warps = 4
    grid_m = triton.cdiv(m, bm)
    grid = (grid_m * triton.cdiv(n, bn),)
    _dgmm_kernel[grid](A, x, C, m, n, lda, ldc, incx, base_x, grid_m, LEFT=(mode == 0),
                       BM=bm, BN=bn, num_warps=warps)
    return None
