"""Shipped solution for aten::stack: one strided copy kernel launch per input.

The result (shape of the inputs with a new dimension of size len(tensors) inserted at `dim`, in
the promoted dtype) is allocated once; input i is copied by one launch into `result.select(dim,
i)`, a view with the result's strides. The copy kernel walks a problem of up to five dims (sizes
merged where both the source and the destination step over them as one, size-1 dims dropped) as
rows x columns, the columns being the innermost group, so contiguous runs are loaded and stored
coalesced; inputs are read through their own strides (transposed, strided, offset and expanded
inputs need no copy) and converted to the result dtype on store. A non-contiguous `out=` is
written through its strides in the same way.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, R, C, n_cblk, z1, z2, z3, s0, s1, s2, s3, sc,
                 d0, d1, d2, d3, dc, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    pid_r = pid // n_cblk
    pid_c = pid - pid_r * n_cblk
    rows = pid_r.to(tl.int64) * BR + tl.arange(0, BR)
    cols = pid_c.to(tl.int64) * BC + tl.arange(0, BC)
    c3 = rows % z3
    t = rows // z3
    c2 = t % z2
    t = t // z2
    c1 = t % z1
    c0 = t // z1
    m = (rows < R)[:, None] & (cols < C)[None, :]
    s_off = (c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3)[:, None] + cols[None, :] * sc
    d_off = (c0 * d0 + c1 * d1 + c2 * d2 + c3 * d3)[:, None] + cols[None, :] * dc
    v = tl.load(src_ptr + s_off, mask=m)
    tl.store(dst_ptr + d_off, v.to(dst_ptr.dtype.element_ty), mask=m)


def _pow2(n: int) -> int:
    return triton.next_power_of_2(max(int(n), 1))


def _as_kernel_view(t):
    return t.view(torch.uint8) if t.dtype == torch.bool else t


def _copy_into(src, dst, gpu):
    """dst[...] = src[...] (same shape), converting to dst's dtype."""
    if dst.numel() == 0:
        return
    groups = []
    for size, ss, ds in zip(src.shape, src.stride(), dst.stride()):
        if size == 1:
            continue
        if groups and groups[-1][1] == size * ss and groups[-1][2] == size * ds:
            groups[-1] = (groups[-1][0] * size, ss, ds)
        else:
            groups.append((size, ss, ds))
    if len(groups) > 5:
        # Split along the first dim of size > 1 on the host (rare: six or more unmergeable dims).
        j = next(d for d in range(src.dim()) if src.shape[d] > 1)
        for k in range(src.shape[j]):
            _copy_into(src.select(j, k), dst.select(j, k), gpu)
        return
    groups = [(1, 0, 0)] * (5 - len(groups)) + groups
    (z0, s0, d0), (z1, s1, d1), (z2, s2, d2), (z3, s3, d3), (C, sc, dc) = groups
    R = z0 * z1 * z2 * z3
    tile = 8192 if gpu else 131072
    bc = min(_pow2(C), 2048 if gpu else tile)
    br = min(_pow2(R), max(1, tile // bc))
    n_cblk = triton.cdiv(C, bc)
    _copy_kernel[(triton.cdiv(R, br) * n_cblk,)](
        _as_kernel_view(src), _as_kernel_view(dst), R, C, n_cblk, z1, z2, z3, s0, s1, s2, s3,
        sc, d0, d1, d2, d3, dc, BR=br, BC=bc, num_warps=8 if br * bc >= 4096 else 4)


def _stack_into(tensors, dim, out):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack(): expects a non-empty TensorList")
    ref = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != ref.shape:
            raise RuntimeError(f"stack(): expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(t.shape)} at entry {i}")
    dtype = ref.dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    nd = ref.dim() + 1
    if not -nd <= dim < nd:
        raise IndexError(f"stack(): dim {dim} out of range for the {nd}-dimensional result")
    dim %= nd
    shape = list(ref.shape)
    shape.insert(dim, len(tensors))
    if out is None:
        out = torch.empty(shape, dtype=dtype, device=ref.device)
    elif list(out.shape) != shape:
        raise RuntimeError(f"stack(): out has shape {list(out.shape)}, expected {shape}")
    if out.numel() == 0:
        return out
    gpu = ref.device.type != "cpu"
    for i, t in enumerate(tensors):
        _copy_into(t, out.select(dim, i), gpu)
    return out


def stack(tensors: list[torch.Tensor], dim: int = 0) -> torch.Tensor:
    return _stack_into(tensors, dim, None)


def stack_out(tensors: list[torch.Tensor], dim: int = 0, *, out: torch.Tensor) -> torch.Tensor:
    return _stack_into(tensors, dim, out)
