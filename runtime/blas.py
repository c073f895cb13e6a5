"""BLAS storage for the cuBLAS tasks' references: column-major matrices and strided vectors.

The references (tasks/cublas/*/reference.py) state each routine's semantics with torch ops on
the 1-D buffers a candidate gets (docs/tasks-cublas.md); these helpers are the storage rules they
share, so that each reference reads as the routine's formula. Every view shares the buffer's
storage: writing through it writes the buffer, and only the elements BLAS defines are touched.
"""

from __future__ import annotations

import torch

# cuBLAS's enum values (cublas_api.h)
OP_N, OP_T, OP_C = 0, 1, 2
LOWER, UPPER = 0, 1
NON_UNIT, UNIT = 0, 1
LEFT, RIGHT = 0, 1


def mat(buf: torch.Tensor, rows: int, cols: int, ld: int) -> torch.Tensor:
    """The rows x cols column-major matrix at the start of `buf`: element (i, j) is
    buf[i + j*ld]. A view (writes go to `buf`); empty when rows or cols is 0."""
    if rows <= 0 or cols <= 0:
        return buf.new_empty((max(rows, 0), max(cols, 0)))
    return torch.as_strided(buf, (rows, cols), (1, ld))


def op(m: torch.Tensor, trans: int) -> torch.Tensor:
    """op(M) of a cublasOperation_t: M, its transpose, or its conjugate transpose."""
    if trans == OP_N:
        return m
    if trans == OP_T:
        return m.transpose(0, 1)
    if trans == OP_C:
        return m.transpose(0, 1).conj()
    raise ValueError(f"invalid cublasOperation_t {trans}")


def get_vec(buf: torch.Tensor, n: int, inc: int) -> torch.Tensor:
    """The n-vector x with x[i] = buf[i*inc] for inc > 0 and buf[(n-1-i)*|inc|] for inc < 0
    (BLAS's rule). A view for inc > 0, a copy for inc < 0: write with set_vec."""
    if n <= 0:
        return buf.new_empty((0,))
    v = torch.as_strided(buf, (n,), (abs(inc),))
    return v if inc > 0 else v.flip(0)


def set_vec(buf: torch.Tensor, n: int, inc: int, values: torch.Tensor) -> None:
    """Writes the n-vector `values` into `buf` by the rule of get_vec."""
    if n <= 0:
        return
    v = torch.as_strided(buf, (n,), (abs(inc),))
    v.copy_(values if inc > 0 else values.flip(0))


def triangle(m: torch.Tensor, uplo: int, unit: bool = False) -> torch.Tensor:
    """The uplo triangle of square `m` (a copy), the other entries zero; with `unit`, the
    diagonal is taken as ones and never read."""
    t = torch.triu(m) if uplo == UPPER else torch.tril(m)
    if unit:
        t = t - torch.diag_embed(torch.diagonal(t)) + torch.eye(m.shape[0], dtype=m.dtype,
                                                                device=m.device)
    return t


def symmetric(m: torch.Tensor, uplo: int, hermitian: bool = False) -> torch.Tensor:
    """The full symmetric (Hermitian) matrix that the uplo triangle of square `m` stores; the
    other triangle is never read (for Hermitian, the diagonal's imaginary part neither)."""
    t = triangle(m, uplo)
    strict = t - torch.diag_embed(torch.diagonal(t))
    other = strict.transpose(0, 1)
    diag = torch.diagonal(t)
    if hermitian:
        other = other.conj()
        diag = diag.real.to(m.dtype)
    return strict + other + torch.diag_embed(diag)


def write_triangle(dst: torch.Tensor, values: torch.Tensor, uplo: int) -> None:
    """Writes the uplo triangle (diagonal included) of `values` into square `dst` in place;
    the other triangle of dst keeps what it held."""
    keep = torch.triu(torch.ones_like(values, dtype=torch.bool))
    if uplo == LOWER:
        keep = keep.transpose(0, 1)
    dst.copy_(torch.where(keep, values, dst))
