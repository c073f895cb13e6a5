"""Shipped solution for aten::masked_fill_.Scalar (in place).

The mask is broadcast to self's shape as a stride-0 view (no copy). On the host the pair
(self, mask) is described with at most five dimensions (size-1 dimensions dropped, neighbours
merged where both walk them as one). The kernel tiles (rows = leading dimensions) x (columns =
last dimension), reads the mask through its strides and stores `value` through self's own
strides only where the mask is true; self is never read and never copied.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _masked_fill_kernel(x_ptr, m_ptr, value, n_rows, n_cols, z1, z2, z3,
                        x0, x1, x2, x3, x_c, m0, m1, m2, m3, m_c,
                        BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, FULL_WRITE: tl.constexpr):
    # one grid axis (the second is limited to 65535 programs); row blocks vary fastest, so
    # programs running together share a column range (L2 reuse of broadcast/gathered data)
    pid = tl.program_id(0).to(tl.int64)
    n_rblk = tl.cdiv(n_rows, BLOCK_R)
    pid_c = pid // n_rblk
    pid_r = pid - pid_c * n_rblk
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    c3 = rows % z3
    t = rows // z3
    c2 = t % z2
    t = t // z2
    c1 = t % z1
    c0 = t // z1
    x_row = c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3
    m_row = c0 * m0 + c1 * m1 + c2 * m2 + c3 * m3
    inb = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    fill = tl.load(m_ptr + (m_row[:, None] + cols[None, :] * m_c), mask=inb, other=0) != 0
    if x_ptr.dtype.element_ty.is_floating():
        v = tl.full([BLOCK_R, BLOCK_C], value, tl.float32).to(x_ptr.dtype.element_ty)
    else:
        v = tl.full([BLOCK_R, BLOCK_C], value, x_ptr.dtype.element_ty)
    ptrs = x_ptr + (x_row[:, None] + cols[None, :] * x_c)
    if FULL_WRITE:
        # rewrite whole sectors (old value where the mask is false): a scattered partial write
        # costs the memory system a read-modify-write anyway
        v = tl.where(fill, v, tl.load(ptrs, mask=inb))
        tl.store(ptrs, v, mask=inb)
    else:
        tl.store(ptrs, v, mask=inb & fill)


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


_TILE, _MAX_C, _WARPS, _FULL_WRITE = 4096, 1024, 4, True


def _tiles(n_rows, n_cols, cpu):
    # the CPU interpreter runs programs one by one: give it few, large tiles; on a GPU keep
    # tiles of _TILE elements, smaller when that leaves too few programs to fill the device
    tile = 65536 if cpu else max(256, min(_TILE, triton.next_power_of_2(n_rows * n_cols // 512)))
    block_c = min(triton.next_power_of_2(n_cols), 8192 if cpu else _MAX_C, tile)
    block_r = min(triton.next_power_of_2(n_rows), max(1, tile // block_c))
    return block_r, block_c, _WARPS


def _launch(x, m, value):
    dims = _coalesce(list(x.shape), list(x.stride()), list(m.stride()))
    if len(dims) > _MAX_DIMS:
        # rare (more than five dims that cannot merge): split along the first dim
        for k in range(x.shape[0]):
            _launch(x.select(0, k), m.select(0, k), value)
        return
    while len(dims) < _MAX_DIMS:
        dims.insert(0, (1, [0, 0]))
    n_cols, (x_c, m_c) = dims[-1]
    (z0, st0), (z1, st1), (z2, st2), (z3, st3) = dims[:-1]
    n_rows = z0 * z1 * z2 * z3
    block_r, block_c, warps = _tiles(n_rows, n_cols, x.device.type == "cpu")
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    _masked_fill_kernel[grid](
        x, m, value, n_rows, n_cols, z1, z2, z3,
        st0[0], st1[0], st2[0], st3[0], x_c,
        st0[1], st1[1], st2[1], st3[1], m_c,
        BLOCK_R=block_r, BLOCK_C=block_c, FULL_WRITE=_FULL_WRITE, num_warps=warps)


def masked_fill__Scalar(self: torch.Tensor, mask: torch.Tensor, value) -> torch.Tensor:
    if mask.dtype != torch.bool:
        raise RuntimeError("masked_fill_: mask must be a bool tensor")
    m = mask.expand(self.shape)  # raises if mask does not broadcast to self
    if self.numel() == 0:
        return self
    if self.dtype == torch.bool:
        value = bool(value)
    elif not self.dtype.is_floating_point:
        value = int(value)  # like torch: a float value is truncated toward zero
    else:
        value = float(value)
    if self.dim() == 0:
        _launch(self.reshape(1), m.reshape(1), value)
    else:
        _launch(self, m, value)
    return self
