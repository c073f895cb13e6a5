"""Checks that depend on the task's kind (docs/task-format.md, "Kinds").

compute  values against the float64 reference (compare.py); nothing here.
scalar   the same; the validity check judges a one-value output by its dependence on the inputs.
view     values, and the view rule (applied to compute and scalar tasks too, where ATen returns
         `self` in some cases, like `contiguous` or `to`): every baseline output that shares an
         input's storage must be matched by a candidate output that shares the storage of the
         same input, with the same size, stride and storage offset. A copy with the right values
         is not a view. What makes a task a view task is that the L2 ghost replay is off: a view
         does no kernel work to find.
alloc    no values (they are uninitialized memory): type, shape, dtype, device and strides.
random   no reference values: the metadata checks of alloc (strides excepted), then the task's
         own statistical test, `check_<entry>(sample, draw)` in reference.py, which gets the
         candidate's output and arguments and can draw more samples from fresh calls.

The memory format rule holds for every kind with values: in a case that passes a memory format
(a `torch.memory_format` argument, not None), every returned tensor must have the baseline's
strides, size-1 dimensions aside (their stride does not place any element), since the format
is what such an argument asks for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from runtime.compare import Result
from runtime.inputs import BuiltArg

__all__ = ["KINDS", "Sample", "leaves", "view_mismatch", "format_mismatch", "meta_compare",
           "random_check"]

KINDS = ("compute", "view", "alloc", "random", "scalar")


class Sample:
    """One call of the candidate: its output and its arguments by name (after the call)."""

    def __init__(self, out: Any, args: Sequence[BuiltArg]) -> None:
        self.out = out
        self.args = {a.name: a.value for a in args}


def leaves(x: Any, where: str = "output") -> list[tuple[str, Any]]:
    """The non-container leaves of a (nested) output, each with its path."""
    if isinstance(x, (tuple, list)):
        return [leaf for i, v in enumerate(x) for leaf in leaves(v, f"{where}[{i}]")]
    return [(where, x)]


def _storage(t: torch.Tensor) -> int | None:
    """Address of the storage under `t`, or None when it has no bytes (nothing to share)."""
    s = t.untyped_storage()
    return s.data_ptr() if s.nbytes() else None


def _input_tensors(args: Sequence[BuiltArg]) -> list[tuple[str, int, torch.Tensor]]:
    out = []
    for i, a in enumerate(args):
        if isinstance(a.value, torch.Tensor):
            out.append((a.name, i, a.value))
        elif isinstance(a.value, list):
            out += [(f"{a.name}[{j}]", i, v) for j, v in enumerate(a.value)
                    if isinstance(v, torch.Tensor)]
    return out


def view_mismatch(base_out: Any, base_in: Sequence[BuiltArg], cand_out: Any,
                  cand_in: Sequence[BuiltArg]) -> str | None:
    """Where the baseline returns a view of an input, the candidate must return the same view of
    its own copy of that input. Call only after the values and structure compared equal."""
    base_inputs, cand_inputs = _input_tensors(base_in), _input_tensors(cand_in)
    cand_leaves = dict(leaves(cand_out))
    for where, b in leaves(base_out):
        if not isinstance(b, torch.Tensor) or _storage(b) is None:
            continue
        owner = next((k for k, (_, _, t) in enumerate(base_inputs)
                      if _storage(t) == _storage(b)), None)
        if owner is None:
            continue  # the baseline copied (reshape of a non-viewable layout): values suffice
        name, _, _ = base_inputs[owner]
        c = cand_leaves.get(where)
        if not isinstance(c, torch.Tensor) or _storage(c) != _storage(cand_inputs[owner][2]):
            return (f"{where}: ATen returns a view of '{name}', the candidate's output does not "
                    f"share its storage")
        got = (list(c.shape), list(c.stride()), c.storage_offset())
        want = (list(b.shape), list(b.stride()), b.storage_offset())
        if got != want:
            return (f"{where}: a view of '{name}' with size, stride, offset {got}, expected "
                    f"{want}")
    return None


def format_mismatch(base_out: Any, base_in: Sequence[BuiltArg], cand_out: Any) -> str | None:
    """Where the case passes a memory format, each returned tensor must be laid out like the
    baseline's: the same stride in every dimension of size > 1. Call only after the values and
    structure compared equal."""
    if not any(isinstance(a.value, torch.memory_format) for a in base_in):
        return None
    cand_leaves = dict(leaves(cand_out))
    for where, b in leaves(base_out):
        c = cand_leaves.get(where)
        if not isinstance(b, torch.Tensor) or not isinstance(c, torch.Tensor) or b.numel() < 2:
            continue
        got = [st if sz > 1 else None for sz, st in zip(c.shape, c.stride())]
        want = [st if sz > 1 else None for sz, st in zip(b.shape, b.stride())]
        if got != want:
            return (f"{where}: strides {list(c.stride())}, expected {list(b.stride())} (the "
                    "layout the memory format argument asks for; size-1 dimensions aside)")
    return None


def _describe(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return f"{type(x).__qualname__}{list(x.shape)} {x.dtype}"
    return type(x).__qualname__


def meta_compare(cand: Any, base: Any, strides: bool, where: str = "output") -> Result:
    """Structure, tensor type, shape, dtype, device type and (when `strides`) strides of `cand`
    against the baseline's; values are not looked at."""
    cl, bl = leaves(cand, where), leaves(base, where)
    if [w for w, _ in cl] != [w for w, _ in bl]:
        return Result("bad_output", message=f"{where}: expected {_describe(base)}, got "
                      f"{_describe(cand)}")
    for (w, c), (_, b) in zip(cl, bl):
        if not isinstance(b, torch.Tensor):
            if type(c) is not type(b):
                return Result("bad_output", message=f"{w}: expected {_describe(b)}, got "
                              f"{_describe(c)}")
            continue
        if type(c) is not torch.Tensor:
            return Result("bad_output", message=f"{w}: expected exactly torch.Tensor, got "
                          f"{_describe(c)}")
        for what, got, want in (("shape", list(c.shape), list(b.shape)),
                                ("dtype", c.dtype, b.dtype),
                                ("device", c.device.type, b.device.type)):
            if got != want:
                return Result("bad_output", message=f"{w}: {what} {got}, expected {want}")
        if strides and c.numel() > 1 and list(c.stride()) != list(b.stride()):
            return Result("bad_output", message=f"{w}: strides {list(c.stride())}, expected "
                          f"{list(b.stride())}")
    return Result()


def random_check(check: Callable[[Sample, Callable[[], Sample]], str | None], first: Sample,
                 draw: Callable[[], Sample]) -> Result:
    """Run the task's statistical test; its message, if any, is the mismatch."""
    msg = check(first, draw)
    return Result() if msg is None else Result("mismatch", message=f"output: {msg}")
