"""Shipped solution for aten::sgn: elementwise Triton kernels, flat or tiled, real or complex.

The host describes (self, out) by their common shape and two stride lists, sorts the dimensions
into out's memory order, drops size-1 dimensions and merges neighbours that both tensors walk as
one. When both end up as one unit-stride run (contiguous, or dense with equal strides) a flat
kernel streams them. Otherwise a tiled kernel covers [rows, columns] tiles, the columns being
out's innermost dimension and the rows the (up to five) others, whose offsets are decomposed once
per row; both tensors are addressed through their strides, so no contiguous copy is made.
Offsets are 32-bit unless a tensor spans 2**31 elements.

Complex64 tensors are passed as their float32 `view_as_real` views: the flat kernel streams
the floats and reshapes them into (re, im) pairs, the tiled one loads [..., 2] tiles. z / |z| is
computed after scaling by max(|re|, |im|), so re**2 + im**2 can neither overflow nor underflow.
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
def _sgn_real(x, ty: tl.constexpr):
    # NaN compares false both ways and gives 0, as does -0.0
    if ty.is_floating():
        y = ((x > 0).to(tl.float32) - (x < 0).to(tl.float32)).to(ty)
    else:
        y = (x > 0).to(ty) - (x < 0).to(ty)
    return y


@triton.jit
def _sgn_complex(re, im):
    m = tl.maximum(tl.abs(re), tl.abs(im))
    zero = m == 0.0
    safe = tl.where(zero, 1.0, m)
    a = re / safe
    b = im / safe
    inv = 1.0 / tl.sqrt(tl.where(zero, 1.0, a * a + b * b))  # in [1, 2] unless z == 0
    return tl.where(zero, 0.0, a * inv), tl.where(zero, 0.0, b * inv)


@triton.jit
def _sgn_flat_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, WIDE: tl.constexpr,
                     COMPLEX: tl.constexpr):
    if COMPLEX:
        # float32 views of complex64 storage: stream 2 * BLOCK floats (wide vector loads),
        # then view them as BLOCK (re, im) pairs
        pid = tl.program_id(0)
        if WIDE:
            pid = pid.to(tl.int64)
        offs = pid * (2 * BLOCK) + tl.arange(0, 2 * BLOCK)
        mask = offs < 2 * n
        v = tl.load(x_ptr + offs, mask=mask, other=0.0)
        re, im = tl.split(tl.reshape(v, [BLOCK, 2]))
        yr, yi = _sgn_complex(re, im)
        tl.store(out_ptr + offs, tl.reshape(tl.join(yr, yi), [2 * BLOCK]), mask=mask)
    else:
        offs, mask = _flat_offsets(tl.program_id(0), n, BLOCK, WIDE)
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, _sgn_real(x, out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sgn_tiled_kernel(x_ptr, out_ptr, n_rows, n_cols, z1, z2, z3, z4, a0, a1, a2, a3, a4, ac,
                      b0, b1, b2, b3, b4, bc, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
                      WIDE: tl.constexpr, COMPLEX: tl.constexpr):
    src, dst, mask = _tile_offsets(tl.program_id(0), n_rows, n_cols, z1, z2, z3, z4,
                                   a0, a1, a2, a3, a4, ac, b0, b1, b2, b3, b4, bc,
                                   BLOCK_R, BLOCK_C, WIDE)
    if COMPLEX:
        part = tl.arange(0, 2)[None, None, :]
        m3 = mask[:, :, None] & (part < 2)
        re, im = tl.split(tl.load(x_ptr + (src[:, :, None] * 2 + part), mask=m3, other=0.0))
        yr, yi = _sgn_complex(re, im)
        tl.store(out_ptr + (dst[:, :, None] * 2 + part), tl.join(yr, yi), mask=m3)
    else:
        x = tl.load(x_ptr + src, mask=mask)
        tl.store(out_ptr + dst, _sgn_real(x, out_ptr.dtype.element_ty), mask=mask)


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
    """out[...] = sgn(x[...]) elementwise; x and out have one shape, any strides."""
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
    cplx = x.dtype.is_complex
    xk, ok = (torch.view_as_real(x), torch.view_as_real(out)) if cplx else (x, out)
    tile = _CPU_TILE if cpu else _GPU_TILE
    span = max(n, *(1 + sum((d[0] - 1) * abs(d[k]) for d in dims) for k in (1, 2)))
    wide = (2 if cplx else 1) * (span + tile) >= 2**31
    if not dims or (len(dims) == 1 and dims[0][1] == 1 and dims[0][2] == 1):
        block = min(tile, triton.next_power_of_2(n))
        grid = (triton.cdiv(n, block),)
        _sgn_flat_kernel[grid](xk, ok, n, BLOCK=block, WIDE=wide, COMPLEX=cplx, num_warps=4)
        return
    dims = [(1, 0, 0)] * (_MAX_RANK - len(dims)) + dims
    n_cols, ac, bc = dims[-1]
    n_rows = n // n_cols
    block_c = min(triton.next_power_of_2(n_cols), tile if cpu else _GPU_MAX_C)
    block_r = min(triton.next_power_of_2(n_rows), max(1, tile // block_c))
    grid = (triton.cdiv(n_rows, block_r) * triton.cdiv(n_cols, block_c),)
    (_, a0, b0), (z1, a1, b1), (z2, a2, b2), (z3, a3, b3), (z4, a4, b4) = dims[:-1]
    _sgn_tiled_kernel[grid](
        xk, ok, n_rows, n_cols,
        z1, z2, z3, z4, a0, a1, a2, a3, a4, ac, b0, b1, b2, b3, b4, bc,
        BLOCK_R=block_r, BLOCK_C=block_c, WIDE=wide, COMPLEX=cplx, num_warps=4)


def _is_dense(t: torch.Tensor) -> bool:
    """Whether t covers a gap-free block of storage (any dimension order, no overlap)."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _new_output(x: torch.Tensor) -> torch.Tensor:
    """An output like x: with x's strides when x is dense (one flat pass), else contiguous."""
    if _is_dense(x):
        return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def sgn(self: torch.Tensor) -> torch.Tensor:
    out = _new_output(self)
    _launch(self, out)
    return out


def sgn_out(self: torch.Tensor, *, out: torch.Tensor) -> torch.Tensor:
    if out.shape != self.shape:
        out.resize_(self.shape)
    _launch(self, out)
    return out
