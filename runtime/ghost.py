"""Anti-hack layer L2, ghost replay (docs/anti-hack.md).

A case that passed is run again with every Triton launch turned into a no-op and every tensor
the candidate allocates filled with poison. Outputs that still match the reference were not
computed by a Triton kernel: torch operators, host-side Python, a fallback path did the work.

Two replays with different poisons (NaN and a large finite value for floating dtypes, the
largest and smallest integer, True and False) tell "written by something else" apart from
"happened to equal the poison": a fresh output matches the reference under both only if its
values came from somewhere other than its allocation. The replay patches the launch method of
Triton's kernel classes (the autotuner and heuristics wrappers end in it) and torch's allocation
functions, in torch and in the candidate module's own globals (`from torch import empty`), and
restores them afterwards.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import torch
from triton.runtime.interpreter import InterpretedFunction
from triton.runtime.jit import JITFunction

__all__ = ["POISONS", "poisoned_empty", "replay"]

# torch functions and Tensor methods that hand out memory; their results are poisoned.
_TORCH_ALLOCATORS = ("empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones",
                     "ones_like", "full", "full_like")
_TENSOR_ALLOCATORS = ("new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full")
# Those whose contents are undefined: the re-run poisons only these (zeros must stay zeros).
_UNINITIALISED = frozenset({"empty", "empty_like", "empty_strided", "new_empty",
                            "new_empty_strided"})

# (floating, integer, bool) poison of each replay.
POISONS: tuple[tuple[float, str, bool], ...] = ((float("nan"), "max", True),
                                                (-3.0e4 + 0.5, "min", False))


def _poison(t: Any, which: int) -> Any:
    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return t
    fl, integer, flag = POISONS[which]
    with torch.no_grad():
        if t.dtype == torch.bool:
            t.fill_(flag)
        elif t.is_floating_point() or t.is_complex():
            # float8_e4m3fn cannot hold -3e4 (it would become NaN, the first poison again).
            t.fill_(fl if t.dtype.itemsize > 1 or math.isnan(fl)
                    else max(fl, -torch.finfo(t.dtype).max))
        else:
            info = torch.iinfo(t.dtype)
            t.fill_(info.max if integer == "max" else info.min)
    return t


def _poisoning(fn: Callable[..., Any], which: int) -> Callable[..., Any]:
    def allocate(*args: Any, **kwargs: Any) -> Any:
        return _poison(fn(*args, **kwargs), which)
    return allocate


@contextlib.contextmanager
def replay(candidate: ModuleType, which: int) -> Iterator[list[int]]:
    """Within the block, Triton launches are skipped (counted in the yielded list's element)
    and allocations are poisoned with POISONS[which]."""
    with _patched(candidate, which, skip_launches=True, uninitialised_only=False) as n:
        yield n


@contextlib.contextmanager
def poisoned_empty(candidate: ModuleType, which: int) -> Iterator[list[int]]:
    """Within the block, Triton runs, and memory handed out uninitialised (torch.empty and
    kin) is filled with POISONS[which]: the determinism re-run (runtime.replays
    Replays._rerun), which catches kernels that read memory they never wrote."""
    with _patched(candidate, which, skip_launches=False, uninitialised_only=True) as n:
        yield n


class _SkippedKernel:
    """What a skipped launch returns in place of the compiled kernel JITFunction.run returns.
    A library may keep that kernel and launch it directly on its next call with the same
    arguments' key (FlagGems's LibEntry: `kernel[grid](*args)`), which in the replay's own
    process is the second replayed call: launched this way, it is skipped and counted too.
    Returning None made the library raise there, and the replay, failing closed, made every
    such honest library call a hack."""

    def __init__(self, launches: list[int]) -> None:
        self._launches = launches

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        return self.run

    def run(self, *args: Any, **kwargs: Any) -> None:
        self._launches[0] += 1


@contextlib.contextmanager
def _patched(candidate: ModuleType, which: int, skip_launches: bool,
             uninitialised_only: bool) -> Iterator[list[int]]:
    launches = [0]

    def no_launch(self: Any, *args: Any, **kwargs: Any) -> _SkippedKernel:
        launches[0] += 1
        return _SkippedKernel(launches)

    undo: list[Callable[[], None]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        had = name in vars(owner)
        old = vars(owner).get(name)
        setattr(owner, name, value)
        undo.append((lambda: setattr(owner, name, old)) if had else
                    (lambda: delattr(owner, name)))

    def chosen(names: tuple[str, ...]) -> list[str]:
        return [n for n in names if not uninitialised_only or n in _UNINITIALISED]

    try:
        if skip_launches:
            patch(JITFunction, "run", no_launch)
            patch(InterpretedFunction, "run", no_launch)
        originals = {}
        for name in chosen(_TORCH_ALLOCATORS):
            fn = getattr(torch, name)
            originals[id(fn)] = _poisoning(fn, which)
            patch(torch, name, originals[id(fn)])
        for name in chosen(_TENSOR_ALLOCATORS):
            patch(torch.Tensor, name, _poisoning(getattr(torch.Tensor, name), which))
        for name, value in list(vars(candidate).items()):
            if id(value) in originals and callable(value):
                patch(candidate, name, originals[id(value)])
        yield launches
    finally:
        for u in reversed(undo):
            u()
