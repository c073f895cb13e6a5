"""Anti-hack: the functions the harness relies on are still the ones it started with.

L1 rejects monkey-patching it can read (`monkey-patch`, `dunder` rules); this is the runtime
check behind it. Before the candidate is imported, the worker records the identity of every
callable attribute of the modules and classes that checking and timing go through: torch, its
Tensor class, torch.cuda, Triton's kernel classes, time, and the harness's own modules. After
the import and after every case the record is compared: an attribute that now holds another
object was replaced. New attributes are ignored (torch and Triton add some lazily), and so are
non-callables (module flags that change as CUDA initializes).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import torch
from triton.runtime.interpreter import InterpretedFunction
from triton.runtime.jit import JITFunction

__all__ = ["Snapshot"]

_HARNESS = ("runtime.compare", "runtime.inputs", "runtime.timing", "runtime.kinds",
            "runtime.ghost", "runtime.mutants", "runtime.worker", "runtime.integrity",
            "runtime.trace", "runtime.gpulock", "runtime.records", "runtime.job",
            "runtime.loading", "runtime.candidate", "runtime.clocks", "runtime.startup",
            "runtime.device", "runtime.checking", "runtime.replays", "runtime.timed",
            "runtime.evaluator", "runtime.source", "runtime.runner", "runtime.runner_timing")


def _owners() -> list[tuple[str, Any]]:
    owners: list[tuple[str, Any]] = [("torch", torch), ("torch.Tensor", torch.Tensor),
                                     ("torch.cuda", torch.cuda), ("time", time),
                                     ("JITFunction", JITFunction),
                                     ("InterpretedFunction", InterpretedFunction)]
    owners += [(name, sys.modules[name]) for name in _HARNESS if name in sys.modules]
    return owners


def _attrs(owner: Any) -> dict[str, Any]:
    """A module's own attributes; a class's attributes as lookups see them, inherited ones
    included, so that shadowing a base-class method (`torch.Tensor.abs = ...`) shows."""
    if isinstance(owner, type):
        out: dict[str, Any] = {}
        for klass in reversed(owner.__mro__):  # raw dict entries: no fresh bound methods
            out.update(vars(klass))
        return out
    return dict(vars(owner))


class Snapshot:
    """Identities of the callables the harness trusts, taken at construction."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], int] = {}
        for owner_name, owner in _owners():
            for name, value in _attrs(owner).items():
                if callable(value):
                    self._ids[(owner_name, name)] = id(value)

    def replaced(self) -> str | None:
        """The first trusted callable that now holds another object (or is gone), by name."""
        now = {(o, n): id(v) for o, owner in _owners() for n, v in _attrs(owner).items()}
        for key, old in self._ids.items():
            if now.get(key) != old:
                return f"{key[0]}.{key[1]}" + ("" if key in now else " (deleted)")
        return None
