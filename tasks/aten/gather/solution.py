"""Shipped solution for aten::gather.

out[p] = self[p with its coordinate along `dim` replaced by index[p]], for every position p of
`index`. On the host the problem is described with at most five dimensions (size-1 dimensions
dropped, neighbours merged where index, self and the output all walk them as one); `self`'s
stride along `dim` is left out of the coordinate sum and multiplies the loaded index instead.
The kernel tiles (rows = leading dimensions) x (columns = last dimension), decomposes each row
once, and reads both inputs through their strides with int64 offsets: no input is copied.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(self_ptr, idx_ptr, out_ptr, n_rows, n_cols, z1, z2, z3,
                   i0, i1, i2, i3, i_c, s0, s1, s2, s3, s_c, o0, o1, o2, o3, o_c, s_dim,
                   BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # one grid axis (the second is limited to 65535 programs); row blocks vary fastest, so
    # programs running together share a column range (L2 reuse of broadcast/gathered data)
    pid = tl.program_id(0).to(tl.int64)
    n_rblk = tl.cdiv(n_rows, BLOCK_R)
    pid_c = pid // n_rblk
    pid_r = pid - pid_c * n_rblk
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    # row -> coordinates of the four leading dimensions
    c3 = rows % z3
    t = rows // z3
    c2 = t % z2
    t = t // z2
    c1 = t % z1
    c0 = t // z1
    i_row = c0 * i0 + c1 * i1 + c2 * i2 + c3 * i3
    s_row = c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3
    o_row = c0 * o0 + c1 * o1 + c2 * o2 + c3 * o3
    m = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    idx = tl.load(idx_ptr + (i_row[:, None] + cols[None, :] * i_c), mask=m, other=0).to(tl.int64)
    v = tl.load(self_ptr + (s_row[:, None] + cols[None, :] * s_c + idx * s_dim), mask=m)
    tl.store(out_ptr + (o_row[:, None] + cols[None, :] * o_c), v, mask=m)


_MAX_DIMS = 5


def _coalesce(sizes, *strides):
    """Drop size-1 dims and merge neighbours that every stride list walks as one dim."""
    dims = []
    for i, n in enumerate(sizes):
        if n == 1:
            continue
        st = [s[i] for s in strides]
        if dims and all(ps == s * n for ps, s in zip(dims[-1][1], st)):
            dims[-1] = (dims[-1][0] * n, st)
        else:
            dims.append((n, st))
    return dims


_TILE, _MAX_C, _WARPS = 1024, 1024, 4


def _tiles(n_rows, n_cols, cpu):
    # the CPU interpreter runs programs one by one: give it few, large tiles; on a GPU keep
    # tiles of _TILE elements, smaller when that leaves too few programs to fill the device
    tile = 65536 if cpu else max(256, min(_TILE, triton.next_power_of_2(n_rows * n_cols // 512)))
    block_c = min(triton.next_power_of_2(n_cols), 8192 if cpu else _MAX_C, tile)
    block_r = min(triton.next_power_of_2(n_rows), max(1, tile // block_c))
    return block_r, block_c, _WARPS


def _launch(self, dim, index, out):
    sizes = list(index.shape)
    s_strides = [0 if d == dim else st for d, st in enumerate(self.stride())]
    dims = _coalesce(sizes, list(index.stride()), s_strides, list(out.stride()))
    if len(dims) > _MAX_DIMS:
        # rare (more than five dims that cannot merge): split along a dim other than `dim`
        j = 0 if dim != 0 else 1
        for k in range(sizes[j]):
            _launch(self.select(j, k), dim - 1 if j < dim else dim, index.select(j, k), out.select(j, k))
        return
    while len(dims) < _MAX_DIMS:
        dims.insert(0, (1, [0, 0, 0]))
    n_cols, (i_c, s_c, o_c) = dims[-1]
    (z0, st0), (z1, st1), (z2, st2), (z3, st3) = dims[:-1]
    n_rows = z0 * z1 * z2 * z3
    block_r, block_c, warps = _tiles(n_rows, n_cols, out.device.type == "cpu")
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _gather_kernel[grid](
        self, index, out, n_rows, n_cols, z1, z2, z3,
        st0[0], st1[0], st2[0], st3[0], i_c,
        st0[1], st1[1], st2[1], st3[1], s_c,
        st0[2], st1[2], st2[2], st3[2], o_c,
        self.stride(dim),
        BLOCK_R=block_r, BLOCK_C=block_c, num_warps=warps)


def gather(self: torch.Tensor, dim: int, index: torch.Tensor, *, sparse_grad: bool = False) -> torch.Tensor:
    nd = max(self.dim(), 1)
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd:
        raise IndexError(f"gather: dim {dim} out of range")
    if index.dim() != self.dim() and not (index.dim() <= 1 and self.dim() <= 1):
        raise RuntimeError("gather: index and self must have the same number of dimensions")
    out = torch.empty(index.shape, dtype=self.dtype, device=self.device)
    if out.numel() == 0:
        return out
    if self.dim() == 0 or index.dim() == 0:
        # 0-d tensors act as 1-d tensors of one element
        _launch(self.reshape(-1), 0, index.reshape(-1), out.reshape(-1))
    else:
        _launch(self, d, index, out)
    return out
