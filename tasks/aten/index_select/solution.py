"""Shipped solution for aten::index_select: one 2-D gather-copy kernel.

The output is seen as rows x cols: a row is a pair (position a over the dims before `dim`,
position j in `index`), a column a position b over the dims after `dim`. The dims before and
after `dim` are each merged where `self` walks them as one, into at most two groups apiece, so
`self` is read through its own strides (transposed, strided and offset inputs are not copied).
Each row loads its index once; the columns of a row are then a strided (usually contiguous) run
of `self`, copied into the contiguous output with coalesced stores. Values are copied bit for
bit (bool through a uint8 view).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _index_select_kernel(src_ptr, idx_ptr, out_ptr, R, L, C, A1, C1, sa0, sa1, s_dim, sb0, sb1,
                         idx_stride, n_col_blocks, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_c = pid - pid_r * n_col_blocks
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_c.to(tl.int64) * BC + tl.arange(0, BC)
    r_ok = rows < R
    c_ok = cols < C
    a = rows // L
    j = rows - a * L
    idx = tl.load(idx_ptr + j * idx_stride, mask=r_ok, other=0).to(tl.int64)
    a0 = a // A1
    row_off = a0 * sa0 + (a - a0 * A1) * sa1 + idx * s_dim
    b0 = cols // C1
    col_off = b0 * sb0 + (cols - b0 * C1) * sb1
    m = r_ok[:, None] & c_ok[None, :]
    v = tl.load(src_ptr + (row_off[:, None] + col_off[None, :]), mask=m)
    tl.store(out_ptr + (rows[:, None] * C + cols[None, :]), v, mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _groups(dims):
    """Merge (size, stride) dims, in logical order, where the outer one steps over the inner one
    exactly; size-1 dims are dropped. Returns [(size, stride)] (possibly empty)."""
    out = []
    for size, stride in dims:
        if size == 1:
            continue
        if out and out[-1][1] == size * stride:
            out[-1] = (out[-1][0] * size, stride)
        else:
            out.append((size, stride))
    return out


def _tiles(R, C, gpu):
    if not gpu:
        bc = min(_pow2(C), 65536)
        br = min(_pow2(R), max(1, 65536 // bc))
        return br, bc, 4
    bc = min(_pow2(C), 1024)
    br = min(_pow2(R), max(1, 4096 // bc))
    return br, bc, 8 if br * bc >= 4096 else 4


def _index_select_into(self, dim, index, out):
    nd = self.dim()
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"index_select(): dim {dim} out of range for a tensor of {nd} dims")
    dim %= n
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (torch.int32, torch.int64):
        raise RuntimeError("index_select(): index must be int32 or int64")
    L = index.numel()
    if nd == 0:
        shape = []
        src = self.reshape(1)
    else:
        shape = list(self.shape)
        shape[dim] = L
        src = self
    if out is None:
        out = torch.empty(shape, dtype=self.dtype, device=self.device)
    elif list(out.shape) != shape or out.dtype != self.dtype:
        raise RuntimeError(f"index_select(): out must be {self.dtype} of shape {shape}")
    if out.numel() == 0:
        return out
    if src.shape[dim] == 0:
        raise IndexError("index_select(): index out of range in self")
    before = _groups([(src.shape[d], src.stride(d)) for d in range(dim)])
    after = _groups([(src.shape[d], src.stride(d)) for d in range(dim + 1, src.dim())])
    if len(before) > 2 or len(after) > 2:
        src = src.contiguous()
        before = _groups([(src.shape[d], src.stride(d)) for d in range(dim)])
        after = _groups([(src.shape[d], src.stride(d)) for d in range(dim + 1, src.dim())])
    (A0, sa0), (A1, sa1) = [(1, 0)] * (2 - len(before)) + before
    (C0, sb0), (C1, sb1) = [(1, 0)] * (2 - len(after)) + after
    dst = out if out.is_contiguous() else torch.empty(shape, dtype=out.dtype, device=out.device)
    src_k, dst_k = src, dst
    if src.dtype == torch.bool:
        src_k, dst_k = src.view(torch.uint8), dst.view(torch.uint8)
    idx = index.reshape(1) if index.dim() == 0 else index
    R = A0 * A1 * L
    C = C0 * C1
    br, bc, warps = _tiles(R, C, self.device.type != "cpu")
    n_col_blocks = triton.cdiv(C, bc)
    grid = (triton.cdiv(R, br) * n_col_blocks,)
    _index_select_kernel[grid](src_k, idx, dst_k, R, L, C, A1, C1, sa0, sa1, src.stride(dim),
                               sb0, sb1, idx.stride(0), n_col_blocks, BR=br, BC=bc,
                               num_warps=warps)
    if dst is not out:
        out.copy_(dst)
    return out


def index_select(self: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    return _index_select_into(self, dim, index, None)


def index_select_out(self: torch.Tensor, dim: int, index: torch.Tensor, *,
                     out: torch.Tensor) -> torch.Tensor:
    return _index_select_into(self, dim, index, out)
