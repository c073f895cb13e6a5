"""The check of one candidate call: against the reference and the baseline, called here.

Checks is the base of runtime.evaluator's Evaluator: the candidate's call in its runner (on the
case's inputs, which the runner builds from their recipe), the reference's and the baseline's
calls in the judge, and the whole check of an output (values, mutated inputs, aliasing and
layout as ATen's; metadata and the statistical test for the alloc and random kinds).
"""

from __future__ import annotations

from types import ModuleType
from dataclasses import replace
from typing import Any

import torch

from runtime.clocks import Phases
from runtime.compare import Result, aliases, compare, find_mutation, merge
from runtime.device import OutOfMemory, context_lost, is_oom
from runtime.gpulock import GpuLock
from runtime.inputs import BuiltArg, call, clone_args, upcast_args
from runtime.job import CaseSpec, EntrySpec, Job
from runtime.kinds import Sample, format_mismatch, meta_compare, random_check, view_mismatch
from runtime.records import CaseReport, describe, error_trace
from runtime.source import cap
from runtime.remote import Remote, RemoteError, RunnerLost
from runtime.verdicts import Verdict

Call = tuple[Any, tuple[BuiltArg, ...]]  # a call's output and the arguments it was called on


def _check_returns(entry: EntrySpec, out: Any, args: tuple[BuiltArg, ...]) -> str | None:
    """An in-place or out= entry must return the argument(s) it wrote, not copies."""
    if entry.returns in ("value", "none"):
        return None  # keywords, even when an argument happens to be named "value"
    names = entry.returns if isinstance(entry.returns, tuple) else (entry.returns,)
    by_name = {a.name: a.value for a in args}
    if not all(n in by_name for n in names):
        return None  # "value" or "none": nothing to alias
    outs = out if isinstance(entry.returns, tuple) else (out,)
    if not isinstance(outs, (tuple, list)) or len(outs) != len(names):
        return f"output: must be the tuple of arguments {', '.join(names)}"
    for o, n in zip(outs, names):
        if not aliases(o, by_name[n]):
            return f"output: must be argument '{n}' itself (the op writes it in place)"
    return None


class Checks:
    """Calls and checks of one case; the state is set by Evaluator.__init__."""

    job: Job
    remote: Remote
    reference: ModuleType | None
    reference_error: str | None
    device: str
    lock: GpuLock
    compile_ms: float
    _phases: Phases
    _recipe: dict[str, Any] | None
    _recipe_of: tuple[BuiltArg, ...] | None

    def _sync(self) -> None:
        if self.job.platform == "cuda":
            torch.cuda.synchronize()

    def _context_lost(self, e: BaseException) -> bool:
        """The runner's context (it says so), or the judge's own (a sticky error here)."""
        if isinstance(e, RemoteError):
            return e.lost
        return context_lost(e, torch.device(self.device))

    def _cand(self, entry: EntrySpec, args: tuple[BuiltArg, ...], mode: str = "plain",
              remote: Remote | None = None
              ) -> tuple[Any, tuple[BuiltArg, ...], dict[str, Any]]:
        """The candidate's entry on copies of args, in the runner (or `remote`); compile time
        counted. The case's own inputs are not sent: the runner builds them from the case's
        recipe (the same code, seed and device draw the same values; the judge checks the
        answer against its own inputs all the same)."""
        out, new_args, head = (remote or self.remote).call(entry.name, args, mode,
                                                            self._recipe_for(args))
        self._count_compile(head)
        return out, new_args, head

    def _count_compile(self, head: dict[str, Any]) -> None:
        ms = head.get("compile_ms")
        if isinstance(ms, (int, float)) and 0 <= ms < 1e9:
            self.compile_ms += ms

    def _failed(self, case: CaseSpec, verdict: Verdict, e: BaseException,
                prefix: str = "") -> tuple[CaseReport, bool]:
        """The report of a case that raised; an out-of-memory error is raised on to run(),
        which retries the case (runtime.evaluator _OOM_WAITS_S); a lost runner ends the job
        (runtime.worker main)."""
        if isinstance(e, RunnerLost):
            raise e
        if is_oom(e):
            raise OutOfMemory(CaseReport(case.id, verdict, message=cap(prefix + describe(e)),
                                          trace=error_trace(e)))
        lost = self._context_lost(e)
        return CaseReport(case.id, "error" if lost else verdict,
                          message=cap(prefix + describe(e)), trace=error_trace(e)), lost

    def _check(self, entry: EntrySpec, case: CaseSpec, out: Any, args: tuple[BuiltArg, ...],
               ref: tuple[Any, tuple[BuiltArg, ...]],
               base: tuple[Any, tuple[BuiltArg, ...]]) -> Result:
        """The output and every mutated argument, against the reference and the baseline."""
        results = [compare(out, ref[0], base[0], case.atol, case.rtol)]
        for i, a in enumerate(args):
            if a.name in entry.mutates:
                results.append(compare(a.value, ref[1][i].value, base[1][i].value, case.atol,
                                       case.rtol, f"argument '{a.name}'"))
        return merge(results)

    def _recipe_for(self, args: tuple[BuiltArg, ...]) -> dict[str, Any] | None:
        """How the runner builds `args` itself, when they are the current case's inputs."""
        return self._recipe if self._recipe and args is self._recipe_of else None

    def _reference(self, entry: EntrySpec, ref_fn: Any, inputs: tuple[BuiltArg, ...],
                   base: Call | None = None, valued: bool = True) -> tuple[Call, Call]:
        """The reference's call (on float64 copies of `inputs`, or the baseline's when the
        entry's reference precision is native or `valued` is false: alloc and random kinds
        have no reference values) and the baseline's: the reference on native copies, or
        `base`, such a call already made (the timed rounds' last)."""
        if base is None:
            base_in = clone_args(inputs)
            base = call(ref_fn, base_in), base_in
        ref = base
        if valued and entry.reference_precision != "native":
            ref_in = upcast_args(inputs)
            ref = call(ref_fn, ref_in), ref_in
        self._sync()
        return ref, base

    def _judge(self, entry: EntrySpec, case: CaseSpec, out: Any, args: tuple[BuiltArg, ...],
               inputs: tuple[BuiltArg, ...], ref: Call, base: Call,
               where: str = "") -> tuple[CaseReport, bool]:
        """The whole check of one candidate call (`out`, on `args`, copies of `inputs`):
        values against the reference, structure against the baseline, no input outside the
        entry's mutated ones touched, aliasing as ATen's. `where` prefixes the messages."""
        base_res = self._check(entry, case, base[0], base[1], ref, base)
        if base_res.verdict == "bad_output":
            return CaseReport(case.id, "ref_error", message=cap(
                f"reference and baseline disagree: {base_res.message}")), False
        try:
            res = self._check(entry, case, out, args, ref, base)
            mutated = find_mutation(args, inputs, entry.mutates)
        except Exception as e:
            return self._failed(case, "bad_output", e, where + "cannot compare: ")
        if res.verdict == "bad_output":
            return CaseReport(case.id, "bad_output", message=cap(where + res.message)), False
        if mutated:
            return CaseReport(case.id, "mutated_input", message=cap(where + mutated)), False
        alias_err = _check_returns(entry, out, args)
        if not alias_err:  # where ATen returns an input's storage, so must the candidate
            alias_err = (view_mismatch(base[0], base[1], out, args)
                         or format_mismatch(base[0], base[1], out))
        if alias_err:
            return CaseReport(case.id, "bad_output", message=cap(where + alias_err)), False
        report = CaseReport(case.id, res.verdict, res.max_abs_err, res.tol_use,
                            base_res.tol_use, message=cap(where + res.message)
                            if res.message else None)
        if res.verdict == "mismatch":
            return replace(report, bad=res.bad, first_bad=res.first_bad), False
        return report, False

    def _unvalued(self, entry: EntrySpec, case: CaseSpec,
                  inputs: tuple[BuiltArg, ...], out: Any, args: tuple[BuiltArg, ...],
                  base: Call, where: str = "") -> tuple[CaseReport, bool]:
        """alloc and random kinds: the candidate call's metadata against the baseline's (no
        reference values), then, for random, the task's statistical test on this and further
        samples."""
        strides = self.job.kind == "alloc"
        res = merge([meta_compare(out, base[0], strides)] + [
            meta_compare(a.value, b.value, strides, f"argument '{a.name}'")
            for a, b in zip(args, base[1]) if a.name in entry.mutates])
        if res.verdict != "pass":
            return CaseReport(case.id, res.verdict, message=cap(where + res.message)), False
        mutated = find_mutation(args, inputs, entry.mutates)
        if mutated:
            return CaseReport(case.id, "mutated_input", message=cap(where + mutated)), False
        alias_err = _check_returns(entry, out, args)
        if alias_err:
            return CaseReport(case.id, "bad_output", message=cap(where + alias_err)), False
        if self.job.kind == "random":
            check = getattr(self.reference, "check_" + entry.name, None)
            if not callable(check):
                return CaseReport(case.id, "ref_error", message=self.reference_error or
                                  f"reference.py defines no 'check_{entry.name}' (random task)"
                                  ), False

            def draw() -> Sample:
                drawn, more, _ = self._cand(entry, inputs)
                return Sample(drawn, more)
            try:
                res = random_check(check, Sample(out, args), draw)
            except RunnerLost:
                raise
            except BaseException as e:
                return self._failed(case, "error", e, where + "statistical check: ")
            if res.verdict != "pass":
                return CaseReport(case.id, res.verdict, message=cap(where + res.message)), False
        return CaseReport(case.id, "pass"), False
