"""Shipped solution for aten::special_entr: elementwise Triton kernels, one flat and one tiled.

entr(x) = -x * log(x) for x > 0 (which gives -inf at +inf), 0 at x = 0, -inf for x < 0 and
NaN for NaN, computed in float32 and rounded once to the output dtype (float16 overflows to
-inf beyond x of about 7000, as the true value does).

Layout: the host describes (self, out) by their common shape and two stride lists, sorts the
dimensions into out's memory order, drops size-1 dimensions and merges neighbours that both
tensors walk as one. When both end up as one unit-stride run (contiguous, or dense with equal
strides) a flat kernel streams them. Otherwise a tiled kernel covers [rows, columns] tiles, the
columns being out's innermost dimension and the rows the (up to five) others, whose offsets are
decomposed once per row; both tensors are addressed through their strides, so no contiguous copy
is made. Offsets are 32-bit unless a tensor spans 2**31 elements.
"""

import torch
import triton
import triton.language as tl

_MAX_RANK = 6
_GPU_TILE = 2048  # elements per program on a GPU: 16 per thread with 4 warps
_GPU_MAX_C = 1024  # widest column block of the tiled kernel on a GPU
_CPU_TILE = 1 << 16  # the interpreter pays per program: few, large blocks


@triton.jit
def _flat_offsets(pid, n, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    if WIDE:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    return offs, offs < n


@triton.jit
def _tile_offsets(pid, n_rows, n_cols, z1, z2, z3, z4, a0, a1, a2, a3, a4, ac,
                  b0, b1, b2, b3, b4, bc,
                  BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, WIDE: tl.constexpr):
    """Offsets into x and out of one [BLOCK_R, BLOCK_C] tile: rows are the (up to five)
    leading dims, decomposed once per row; columns are the innermost dim."""
    if WIDE:
        pid = pid.to(tl.int64)
    n_cblk = tl.cdiv(n_cols, BLOCK_C)
    pid_r = pid // n_cblk
    pid_c = pid - pid_r * n_cblk
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    r = rows
    i = r % z4
    r = r // z4
    src = i * a4
    dst = i * b4
    i = r % z3
    r = r // z3
    src += i * a3
    dst += i * b3
    i = r % z2
    r = r // z2
    src += i * a2
    dst += i * b2
    i = r % z1
    r = r // z1
    src += i * a1 + r * a0
    dst += i * b1 + r * b0
    src = src[:, None] + cols[None, :] * ac
    dst = dst[:, None] + cols[None, :] * bc
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    return src, dst, mask


@triton.jit
def _special_entr(x, ty: tl.constexpr):
    xf = x.to(tl.float32)
    pos = -xf * tl.log(tl.where(xf > 0, xf, 1.0))
    neg_inf = tl.full(xf.shape, float("-inf"), tl.float32)
    # NaN fails every comparison and is passed through as it is
    y = tl.where(xf > 0, pos, tl.where(xf == 0, 0.0, tl.where(xf < 0, neg_inf, xf)))
    return y.to(ty)


@triton.jit
def _special_entr_flat_kernel(x_ptr, out_ptr, n,
                              BLOCK: tl.constexpr, WIDE: tl.constexpr):
    offs, mask = _flat_offsets(tl.program_id(0), n, BLOCK, WIDE)
    x = tl.load(x_ptr + offs, mask=mask)
    y = _special_entr(x, out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def _special_entr_tiled_kernel(x_ptr, out_ptr, n_rows, n_cols,
                               z1, z2, z3, z4, a0, a1, a2, a3, a4, ac, b0, b1, b2, b3, b4, bc,
                               BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, WIDE: tl.constexpr):
    src, dst, mask = _tile_offsets(tl.program_id(0), n_rows, n_cols, z1, z2, z3, z4,
                                   a0, a1, a2, a3, a4, ac, b0, b1, b2, b3, b4, bc,
                                   BLOCK_R, BLOCK_C, WIDE)
    x = tl.load(x_ptr + src, mask=mask)
    y = _special_entr(x, out_ptr.dtype.element_ty)
    tl.store(out_ptr + dst, y, mask=mask)


def _plan(shape, xs, os_):
    """Dims (size, x stride, out stride) in out's memory order, size-1 dims dropped, merged."""
    dims = sorted(((n, a, b) for n, a, b in zip(shape, xs, os_) if n != 1),
                  key=lambda d: (abs(d[2]), abs(d[1])), reverse=True)
    merged = []
    for n, a, b in dims:
        if merged and merged[-1][1] == a * n and merged[-1][2] == b * n:
            merged[-1] = (merged[-1][0] * n, a, b)
        else:
            merged.append((n, a, b))
    return merged


def _launch(x: torch.Tensor, out: torch.Tensor) -> None:
    """out[...] = special_entr(x[...]) elementwise; x and out have one shape, any strides."""
    n = out.numel()
    if n == 0:
        return
    dims = _plan(out.shape, x.stride(), out.stride())
    if len(dims) > _MAX_RANK:
        # more than six dimensions that do not merge: go through contiguous buffers
        tmp = torch.empty(out.shape, dtype=out.dtype, device=out.device)
        _launch(x.contiguous(), tmp)
        out.copy_(tmp)
        return
    cpu = out.device.type == "cpu"
    tile = _CPU_TILE if cpu else _GPU_TILE
    span = max(n, *(1 + sum((d[0] - 1) * abs(d[k]) for d in dims) for k in (1, 2)))
    wide = span + tile >= 2**31
    if not dims or (len(dims) == 1 and dims[0][1] == 1 and dims[0][2] == 1):
        block = min(tile, triton.next_power_of_2(n))
        grid = (triton.cdiv(n, block),)
        _special_entr_flat_kernel[grid](
            x, out, n, BLOCK=block, WIDE=wide, num_warps=4)
        return
    dims = [(1, 0, 0)] * (_MAX_RANK - len(dims)) + dims
    n_cols, ac, bc = dims[-1]
    n_rows = n // n_cols
    block_c = min(triton.next_power_of_2(n_cols), tile if cpu else _GPU_MAX_C)
    block_r = min(triton.next_power_of_2(n_rows), max(1, tile // block_c))
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    (_, a0, b0), (z1, a1, b1), (z2, a2, b2), (z3, a3, b3), (z4, a4, b4) = dims[:-1]
    _special_entr_tiled_kernel[grid](
        x, out, n_rows, n_cols,
        z1, z2, z3, z4, a0, a1, a2, a3, a4, ac, b0, b1, b2, b3, b4, bc,
        BLOCK_R=block_r, BLOCK_C=block_c, WIDE=wide, num_warps=4)


def _is_dense(t: torch.Tensor) -> bool:
    """Whether t covers a gap-free block of storage (any dimension order, no overlap)."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _new_output(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """An output like x: with x's strides when x is dense (one flat pass), else contiguous."""
    if _is_dense(x):
        return torch.empty_strided(x.shape, x.stride(), dtype=dtype, device=x.device)
    return torch.empty(x.shape, dtype=dtype, device=x.device)


def _result_dtype(self: torch.Tensor) -> torch.dtype:
    if self.dtype.is_complex:
        raise TypeError("special_entr: not defined for complex inputs")
    if self.dtype.is_floating_point:
        return self.dtype
    return torch.float32  # integer and bool inputs promote to the default float dtype


def special_entr(self: torch.Tensor) -> torch.Tensor:
    out = _new_output(self, _result_dtype(self))
    _launch(self, out)
    return out


def special_entr_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    if out.shape != self.shape:
        out.resize_(self.shape)
    _launch(self, out)
    return out
