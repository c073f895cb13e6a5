"""Output checks: candidate against the float64 reference, in the baseline's structure and dtype.

The baseline (the reference function on the native inputs) fixes what a correct output looks
like: structure, exact `torch.Tensor` type, shape, dtype, device type. The reference (the same
function on float64 copies) fixes the values. Floating values must satisfy
|cand - ref| <= atol + rtol * |ref| elementwise (complex: on the modulus of the difference), with
NaN and +-inf at the same positions; integer and bool values must be equal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch

from runtime.inputs import BuiltArg, storage_span, strip_bits
from runtime.verdicts import Verdict

__all__ = ["Result", "compare", "merge", "find_mutation", "aliases", "identical", "leaf_tensors",
           "did_nothing"]

# How bad a verdict is; merge() reports the worst one.
_RANK = {"pass": 0, "mismatch": 1, "bad_output": 2}


@dataclass(frozen=True)
class Result:
    """Outcome of one comparison; `tol_use` is the largest err / (atol + rtol*|ref|)."""

    verdict: Verdict = "pass"  # pass, mismatch or bad_output
    max_abs_err: float = 0.0
    tol_use: float = 0.0
    bad: int = 0
    first_bad: int | None = None
    message: str = ""


def _bad_output(where: str, what: str) -> Result:
    return Result("bad_output", message=f"{where}: {what}")


def merge(results: Iterable[Result]) -> Result:
    """The worst verdict (first of equals) with the largest errors and the summed bad count."""
    rs = list(results)
    if not rs:
        return Result()
    worst = max(rs, key=lambda r: _RANK[r.verdict])  # max keeps the first of equal keys
    return replace(worst, max_abs_err=max(r.max_abs_err for r in rs),
                   tol_use=max(r.tol_use for r in rs), bad=sum(r.bad for r in rs))


def _describe(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return f"{type(x).__qualname__}{list(x.shape)} {x.dtype}"
    return type(x).__qualname__


def _item(t: torch.Tensor, i: int) -> str:
    return repr(t.reshape(-1)[i].item())


def _close(cand: torch.Tensor, ref: torch.Tensor, dtype: torch.dtype, atol: float, rtol: float,
           where: str) -> Result:
    """Floating/complex values. Where the reference is not finite once rounded to the output
    dtype (this covers float64 values that overflow it), the candidate must hold the same
    value (NaN for NaN); elsewhere the error is measured against the float64 reference."""
    wide = torch.complex128 if dtype.is_complex else torch.float64
    c, r = cand.to(wide), ref.to(device=cand.device).to(wide)
    if atol > 0 and c.numel():
        # The common case: every value finite (a finite largest error means finite c and r),
        # and the reference's largest magnitude rounds to a finite value of dtype (rounding is
        # monotonic, so then all do); every limit is then positive. The same answer as below
        # in a third of the tensor passes: the checking pass spent a third of its time here on
        # the interpreter.
        err = (c - r).abs()
        r_abs = r.abs()
        max_err = float(err.max())
        r_max = r_abs.max().reshape(1).to(torch.float64)
        # (float8 has no isfinite on the CPU: the rounded value is tested in float64.)
        if math.isfinite(max_err) and bool(torch.isfinite(r_max.to(dtype).to(wide)).all()):
            lim = r_abs.mul_(rtol).add_(atol)
            bad = err > lim
            n_bad = int(bad.sum())
            tol_use = float(err.div_(lim).max())
            return _close_result(cand, ref, bad, n_bad, max_err, tol_use, atol, rtol, where)
    rr = ref.to(device=cand.device).to(dtype).to(wide)
    parts = (lambda t: torch.view_as_real(t)) if dtype.is_complex else (lambda t: t.unsqueeze(-1))
    cp, rp = parts(c), parts(rr)
    nonfinite = (~torch.isfinite(cp)).any(-1) | (~torch.isfinite(rp)).any(-1)
    same = ((cp == rp) | (torch.isnan(cp) & torch.isnan(rp))).all(-1)
    err = torch.where(nonfinite, torch.zeros((), dtype=torch.float64, device=c.device),
                      (c - r).abs())
    lim = atol + rtol * r.abs()
    bad = (nonfinite & ~same) | (err > lim)
    use = torch.where(err == 0, torch.zeros_like(err), err / lim)
    n_bad = int(bad.sum()) if bad.numel() else 0
    max_err = float(err.max()) if err.numel() else 0.0
    tol_use = float(use.max()) if use.numel() else 0.0
    if bool((nonfinite & ~same).any()):
        tol_use = math.inf
    return _close_result(cand, ref, bad, n_bad, max_err, tol_use, atol, rtol, where)


def _close_result(cand: torch.Tensor, ref: torch.Tensor, bad: torch.Tensor, n_bad: int,
                  max_err: float, tol_use: float, atol: float, rtol: float, where: str) -> Result:
    if not n_bad:
        return Result("pass", max_err, tol_use)
    i = int(bad.reshape(-1).nonzero()[0, 0])
    return Result("mismatch", max_err, tol_use, n_bad, i,
                  f"{where}: {n_bad} of {bad.numel()} elements out of tolerance, first at flat "
                  f"index {i}: got {_item(cand, i)}, expected {_item(ref, i)} "
                  f"(atol {atol:.3g}, rtol {rtol:.3g})")


def _exact(cand: torch.Tensor, ref: torch.Tensor, where: str) -> Result:
    r = ref.to(cand.device)
    bad = cand != r
    n_bad = int(bad.sum()) if bad.numel() else 0
    if not n_bad:
        return Result()
    err = (cand.to(torch.float64) - r.to(torch.float64)).abs()
    i = int(bad.reshape(-1).nonzero()[0, 0])
    return Result("mismatch", float(err.max()), math.inf, n_bad, i,
                  f"{where}: {n_bad} of {bad.numel()} elements differ (exact dtype), first at "
                  f"flat index {i}: got {_item(cand, i)}, expected {_item(ref, i)}")


def _tensor(cand: Any, ref: Any, base: torch.Tensor, atol: float, rtol: float,
            where: str) -> Result:
    if type(cand) is not torch.Tensor:
        return _bad_output(where, f"expected exactly torch.Tensor, got {_describe(cand)}")
    if cand.layout != torch.strided:
        return _bad_output(where, f"expected a strided tensor, got layout {cand.layout}")
    if cand.shape != base.shape:
        return _bad_output(where, f"shape {list(cand.shape)}, expected {list(base.shape)}")
    if cand.dtype != base.dtype:
        return _bad_output(where, f"dtype {cand.dtype}, expected {base.dtype}")
    if cand.device.type != base.device.type:
        return _bad_output(where, f"device {cand.device.type}, expected {base.device.type}")
    if not isinstance(ref, torch.Tensor) or ref.shape != base.shape:
        return _bad_output(where, f"reference gives {_describe(ref)}, baseline {_describe(base)}")
    # ATen's lazy conjugate and negative bits are part of what an op returns (resolve_conj
    # clears one); the values are compared as the bits make them read
    bits = (cand.is_conj(), cand.is_neg())
    if bits != (base.is_conj(), base.is_neg()):
        return _bad_output(where, f"lazy bits (conj, neg) {bits}, expected "
                           f"{(base.is_conj(), base.is_neg())}")
    cand, ref = cand.resolve_conj().resolve_neg(), ref.resolve_conj().resolve_neg()
    if base.dtype.is_floating_point or base.dtype.is_complex:
        return _close(cand, ref, base.dtype, atol, rtol, where)
    return _exact(cand, ref, where)


def _scalar(cand: Any, ref: Any, base: Any, atol: float, rtol: float, where: str) -> Result:
    if isinstance(base, bool) or isinstance(base, int):
        kind: tuple[type, ...] = (bool,) if isinstance(base, bool) else (int,)
        if not isinstance(cand, kind) or (kind == (int,) and isinstance(cand, bool)):
            return _bad_output(where, f"expected {type(base).__name__}, got {_describe(cand)}")
        return Result() if cand == ref else Result(
            "mismatch", math.inf, math.inf, 1, 0, f"{where}: got {cand!r}, expected {ref!r}")
    if isinstance(cand, bool) or not isinstance(cand, (int, float, complex)) or (
            isinstance(cand, complex) and not isinstance(base, complex)):
        return _bad_output(where, f"expected {type(base).__name__}, got {_describe(cand)}")
    dtype = torch.complex128 if isinstance(base, complex) else torch.float64
    return _close(torch.tensor(cand, dtype=dtype), torch.tensor(ref, dtype=dtype), dtype,
                  atol, rtol, where)


def compare(cand: Any, ref: Any, base: Any, atol: float, rtol: float,
            where: str = "output") -> Result:
    """Check `cand` against `ref` (values) in the structure and dtypes of `base`."""
    if isinstance(base, torch.Tensor):
        return _tensor(cand, ref, base, atol, rtol, where)
    if isinstance(base, (tuple, list)):
        kind = tuple if isinstance(base, tuple) else list
        if not isinstance(cand, kind) or len(cand) != len(base):
            return _bad_output(where, f"expected a {kind.__name__} of {len(base)}, got "
                               f"{_describe(cand)}"
                               + (f" of {len(cand)}" if isinstance(cand, (tuple, list)) else ""))
        if not isinstance(ref, (tuple, list)) or len(ref) != len(base):
            return _bad_output(where, f"reference gives {_describe(ref)}, baseline "
                               f"{kind.__name__} of {len(base)}")
        return merge(compare(c, r, b, atol, rtol, f"{where}[{i}]")
                     for i, (c, r, b) in enumerate(zip(cand, ref, base)))
    if base is None:
        return Result() if cand is None else _bad_output(where,
                                                         f"expected None, got {_describe(cand)}")
    if isinstance(base, (bool, int, float, complex)):
        return _scalar(cand, ref, base, atol, rtol, where)
    if type(cand) is not type(base):
        return _bad_output(where, f"expected {_describe(base)}, got {_describe(cand)}")
    return Result() if cand == ref else Result(
        "mismatch", 0.0, math.inf, 1, 0, f"{where}: got {cand!r}, expected {ref!r}")


def identical(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same metadata (lazy conjugate and negative bits included) and the same bytes over the
    whole storage span (gaps included)."""
    if type(a) is not torch.Tensor or (a.shape, a.stride(), a.storage_offset(), a.dtype,
                                       a.is_conj(), a.is_neg()) != (
            b.shape, b.stride(), b.storage_offset(), b.dtype, b.is_conj(), b.is_neg()):
        return False
    sa, sb = storage_span(strip_bits(a)[0]), storage_span(strip_bits(b)[0])
    if sa.numel() == 0:
        return True
    return torch.equal(sa.view(torch.uint8), sb.to(a.device).view(torch.uint8))


def find_mutation(now: Sequence[BuiltArg], pristine: Sequence[BuiltArg],
                  mutates: Iterable[str] = ()) -> str | None:
    """Name the first tensor argument outside `mutates` that differs from its pristine copy."""
    allowed = set(mutates)
    for a, p in zip(now, pristine):
        if a.name in allowed:
            continue
        if isinstance(p.value, torch.Tensor):
            pairs = [(a.value, p.value)]
        elif isinstance(p.value, list) and all(isinstance(x, torch.Tensor) or x is None
                                               for x in p.value):
            if not isinstance(a.value, list) or len(a.value) != len(p.value):
                return f"input '{a.name}' was modified (list changed)"
            pairs = list(zip(a.value, p.value))
        else:
            continue
        for i, (x, y) in enumerate(pairs):
            if y is None and x is None:
                continue  # an absent entry of an optional list, still absent
            if y is None or not isinstance(x, torch.Tensor) or not identical(x, y):
                sub = f"[{i}]" if len(pairs) > 1 or isinstance(p.value, list) else ""
                return f"input '{a.name}{sub}' was modified, but the op does not mutate it"
    return None


def aliases(out: Any, arg: Any) -> bool:
    """True when `out` is a tensor starting at the same address as the tensor `arg`."""
    return (isinstance(out, torch.Tensor) and isinstance(arg, torch.Tensor)
            and out.data_ptr() == arg.data_ptr())


def leaf_tensors(v: Any) -> list[torch.Tensor]:
    """A tensor argument, or the tensors of a list argument (Tensor[] of vLLM's cache ops)."""
    if isinstance(v, torch.Tensor):
        return [v]
    return [x for x in v if isinstance(x, torch.Tensor)] if isinstance(v, list) else []


def did_nothing(out: Any, args: tuple[BuiltArg, ...], pristine: tuple[BuiltArg, ...],
                 mutates: tuple[str, ...]) -> bool:
    """True when every output element is either absent or an input left as it was: returned
    tensors that alias an input, and mutated arguments, hold their pristine values. L2 and L3
    judge nothing then (the right answer needed no kernel); the runner answers it for L3's
    traced call itself, which then sends no output (runtime.runner)."""
    inputs = {a.value.untyped_storage().data_ptr(): p.value for a, p in zip(args, pristine)
              if isinstance(a.value, torch.Tensor)}
    leaves = [o for o in (out if isinstance(out, (tuple, list)) else [out])
              if isinstance(o, torch.Tensor)]
    if not isinstance(out, (torch.Tensor, tuple, list)) and out is not None:
        return False  # a Python number came from somewhere
    for o in leaves:
        if o.numel() == 0:
            continue
        p = inputs.get(o.untyped_storage().data_ptr())
        if p is None or not identical(o, p):
            return False
    return all(identical(x, y) for a, p in zip(args, pristine) if a.name in mutates
               for x, y in zip(leaf_tensors(a.value), leaf_tensors(p.value)) if x.numel())
