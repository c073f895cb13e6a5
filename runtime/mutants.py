"""Mutants: deliberate, known breakages of a candidate's outputs, to prove a task's checker.

`kgb lint --deep` evaluates each task's shipped solution once per mutant; a checker that lets a
mutant pass cannot tell that breakage from a correct kernel. Each mutant models a real bug:

- zero:          the output is never written (all zeros)
- tail:          the non-aligned tail is wrong (the last (n-1) % 128 + 1 elements, as when a
                 kernel drops its tail mask or its last partial block)
- last:          only the last element is wrong (an off-by-one loop bound)
- dtype:         the output has the wrong dtype (a forgotten cast)
- perturb:       every element is off by twice the allowed error (precision too low)
- mutate_input:  an input the op must not modify is modified in place (the first tensor
                 argument, or the first tensor of a Tensor[] argument)

The mutation is applied to the candidate's outputs after its call returns, in the worker; an
entry that returns no tensor (an `out=` overload returning None) has the arguments it writes
mutated instead.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

from runtime.inputs import BuiltArg

__all__ = ["MUTANTS", "apply"]

MUTANTS = ("zero", "tail", "last", "dtype", "perturb", "mutate_input")
_TAIL_BLOCK = 128  # a typical BLOCK: the tail a dropped mask leaves wrong

_OTHER_DTYPE = {
    torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.float32: torch.float64,
    torch.float64: torch.float32, torch.complex64: torch.complex128,
    torch.complex128: torch.complex64, torch.bool: torch.uint8,
}


def _bump(x: torch.Tensor) -> torch.Tensor:
    """Values that differ from `x` by far more than any tolerance (NaN stays NaN)."""
    if x.dtype == torch.bool:
        return ~x
    if x.dtype.itemsize == 1 and x.dtype.is_floating_point:
        # float8: no arithmetic on the CPU; the bump in float32, converted back (values
        # past the format's range become NaN, which differs too).
        w = x.to(torch.float32)
        return (w + (1 + w.abs()) * 0.5).to(x.dtype)
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x + (1 + x.abs()) * 0.5
    return x + 1


def _set_flat(t: torch.Tensor, fn: Any, start: int) -> None:
    """Apply fn to the elements of t from flat (logical) index `start` on, in place."""
    n = t.numel()
    if n == 0 or start >= n:
        return
    flat = t.reshape(-1).clone()
    flat[start:] = fn(flat[start:])
    t.copy_(flat.view(t.shape))


def _tensors(out: Any) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, torch.Tensor)]
    return []


def apply(mutant: str, out: Any, args: Sequence[BuiltArg], mutates: Sequence[str],
          atol: float, rtol: float) -> Any:
    """Return the mutated output (most mutants change the output tensors in place)."""
    if mutant == "mutate_input":
        for a in args:
            if a.name in mutates:
                continue
            # A Tensor[] input (the pointer arrays of the batched cuBLAS routines, vLLM's
            # per-layer caches) is an input too: its first non-empty tensor is modified.
            candidates = a.value if isinstance(a.value, list) else [a.value]
            hit = next((t for t in candidates
                        if isinstance(t, torch.Tensor) and t.numel()), None)
            if hit is not None:
                _set_flat(hit, _bump, 0)
                break
        return out
    if mutant == "dtype":
        if isinstance(out, torch.Tensor):
            return out.to(_OTHER_DTYPE.get(out.dtype, torch.float32))
        return out
    targets = _tensors(out) or [t for a in args if a.name in mutates for t in _tensors(a.value)]
    for t in targets[:1]:
        n = t.numel()
        if mutant == "zero":
            t.zero_()
        elif mutant == "tail":
            _set_flat(t, _bump, n - ((n - 1) % _TAIL_BLOCK + 1))
        elif mutant == "last":
            _set_flat(t, _bump, n - 1)
        elif mutant == "perturb":
            if t.dtype.is_floating_point or t.dtype.is_complex:
                wide = t.to(torch.complex128 if t.dtype.is_complex else torch.float64)
                step = 2 * (atol + rtol * wide.abs()) + 1e-300
                t.copy_(wide + torch.where(wide.real < 0, -step, step))
            else:
                _set_flat(t, _bump, 0)
        else:
            raise ValueError(f"unknown mutant '{mutant}'")
    return out
