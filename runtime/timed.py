"""A timed case of a timing job on the GPU (DESIGN §5): the baseline timed in the judge, the
candidate in its runner, and the check of what the timed calls returned.

TimedCases is a base of runtime.evaluator's Evaluator. time_case_remote and remote_wall_gap
(runtime.timing) are looked up here, where tests/runtime/test_timed_case.py replaces them.
"""

from __future__ import annotations

import os
from dataclasses import replace
from types import ModuleType
from typing import Any

import torch

from runtime.checking import Checks
from runtime.inputs import BuiltArg, call, clone_args
from runtime.job import CaseSpec, EntrySpec
from runtime.loading import BASELINE_FILE
from runtime.records import CaseReport
from runtime.source import cap
from runtime.remote import RunnerLost
from runtime.timing import (GAP_CALLS, TimingError, bound_judge, flush_buffer, gap_judge,
                            perturb, remote_wall_gap, time_case_remote)


class TimedCases(Checks):
    """Timed cases; the state is set by Evaluator.__init__."""

    baseline: ModuleType | None
    baseline_note: str | None
    _flush: torch.Tensor | None

    def _baseline_fn(self, entry: EntrySpec, ref_fn: Any) -> tuple[Any, str]:
        """What the speedup of a timed case is over, and its label: the task's baseline.py
        function of the entry's name when it loaded, else the reference on native copies."""
        fn = getattr(self.baseline, entry.name, None) if self.baseline else None
        if callable(fn):
            return fn, BASELINE_FILE
        if self.baseline is not None:
            return ref_fn, f"reference ({BASELINE_FILE} defines no '{entry.name}')"
        return ref_fn, f"reference ({self.baseline_note})" if self.baseline_note else "reference"

    def _timing_pass(self, case: CaseSpec) -> bool:
        """Is `case` timed here: a timed case of a timing job on the GPU."""
        return (self.job.platform == "cuda" and case.timed and bool(self.job.rounds)
                and not self.job.mutant)

    def _timed_case(self, entry: EntrySpec, case: CaseSpec, ref_fn: Any,
                    inputs: tuple[BuiltArg, ...]) -> tuple[CaseReport, bool]:
        """A timed case of a timing job (DESIGN §5), across the trust boundary: the baseline
        is timed here, the candidate in its runner (runtime.timing.time_case_remote). Its
        checking job checked these very inputs (drawn on the device from the case's seed), so
        they are not checked before the rounds: one untimed call of each side loads its
        kernels outside the exclusive section (and pins an error on the right one), the
        rounds run, the event/wall cross-check's calls run on perturbed inputs under the
        judge's clock (remote_wall_gap), and then the candidate's last timed call gets the
        whole check, against the baseline's last timed call where the baseline is the
        reference, and so does one cross-check call the judge picks: a kernel that is right
        once and wrong when called again fails, a time is never that of a wrong answer, and a
        reported time the judge's clock does not allow is a `hack` (bound_judge)."""
        valued = self.job.kind not in ("alloc", "random")
        base_fn, label = self._baseline_fn(entry, ref_fn) if valued else (ref_fn, None)
        try:
            call(base_fn, clone_args(inputs))
            self._sync()
        except BaseException as e:
            return self._failed(case, "ref_error", e, f"{label or 'reference'}: ")
        try:
            self.remote.warm(entry.name, inputs, self._recipe_for(inputs))
        except RunnerLost:
            raise
        except BaseException as e:
            return self._failed(case, "error", e)
        self._phases.mark("call")
        # The rounds and the event/wall cross-check have the GPU alone: other timing workers
        # on it wait at their next section.
        timing, base_last, note, gap = None, None, None, None
        seeds = [case.seed ^ (0x9E3779B97F4A7C15 * (i + 1) & 0xFFFFFFFFFFFF)
                 for i in range(GAP_CALLS)]
        self.lock.exclusive()
        self._phases.mark("wait")
        try:
            if self._flush is None:
                self._flush = flush_buffer(self.device)
            timing, base_call = time_case_remote(self.remote, entry.name, base_fn, inputs,
                                                 self.job.warmup or 0, self.job.rounds or 1,
                                                 self._flush, self.job.timing_method,
                                                 self._recipe_for(inputs))
            base_last = (base_call.output, base_call.args)
            self._phases.mark("time")
            gap = remote_wall_gap(self.remote, inputs, self._flush, seeds)
            self._phases.mark("gap")
        except TimingError as e:
            # The method cannot time this call (a sync inside a CUDA graph capture): the case
            # is checked on a call of its own and keeps no time; the record says why.
            note = cap(f"not timed ({self.job.timing_method}): {e}")
        except RunnerLost:
            raise
        except BaseException as e:
            return self._failed(case, "error", e, "during timing: ")
        self.lock.shared()
        self._phases.mark("wait")
        if timing is not None:
            timing = timing.with_interval()
            self._phases.mark("time")
        where = "last timed call: "
        try:
            if timing is not None:
                out, args = self.remote.result({"op": "time_last"}, inputs)
            else:
                where = ""
                out, args, _ = self._cand(entry, inputs)
        except RunnerLost:
            raise
        except BaseException as e:
            return self._failed(case, "error", e)
        try:
            ref, base = self._reference(entry, ref_fn, inputs,
                                        base_last if base_fn is ref_fn else None, valued)
        except BaseException as e:
            return self._failed(case, "ref_error", e)
        self._phases.mark("reference")
        if not valued:
            report, lost = self._unvalued(entry, case, inputs, out, args, base, where)
        else:
            report, lost = self._judge(entry, case, out, args, inputs, ref, base, where)
            if report.verdict == "pass" and base_fn is not ref_fn and base_last:
                # A baseline.py that does not compute the operation would make every speedup
                # of the task meaningless: its last timed output must pass the same check.
                # A failure is the task's, not the candidate's.
                bad = self._check(entry, case, base_last[0], base_last[1], ref, base)
                if bad.verdict != "pass":
                    report = CaseReport(case.id, "ref_error", message=cap(
                        f"{BASELINE_FILE} disagrees with the reference: {bad.message}"))
            report = replace(report, baseline=label)
        if report.verdict == "pass" and gap is not None:
            report = self._check_gap_call(entry, case, ref_fn, inputs, seeds, valued) or report
        self._phases.mark("check")
        if report.verdict != "pass" or timing is None or gap is None:
            return replace(report, timing=note), lost
        wall_ms, event_ms, parts = gap
        finding = (gap_judge(wall_ms, event_ms)
                   or bound_judge(timing.cand_ms, wall_ms, timing.hold_ms))
        if finding:
            return CaseReport(case.id, "hack", message=cap(finding), wall_ms=wall_ms,
                              wall_event_ms=event_ms, gap_parts=parts), False
        return replace(report, time_base_ms=timing.base_ms, time_cand_ms=timing.cand_ms,
                       time_base_iqr_ms=timing.base_iqr_ms, time_cand_iqr_ms=timing.cand_iqr_ms,
                       speedup=timing.speedup, timed_output_ok=True,
                       speedup_ci_low=timing.speedup_ci[0] if timing.speedup_ci else None,
                       speedup_ci_high=timing.speedup_ci[1] if timing.speedup_ci else None,
                       rounds=timing.rounds, timing=timing.method, hold_ms=timing.hold_ms,
                       base_hold_ms=timing.base_hold_ms,
                       cand_calls=1 + timing.warmup + timing.rounds + GAP_CALLS,
                       base_calls=1 + timing.warmup + timing.rounds,
                       wall_ms=wall_ms, wall_event_ms=event_ms, gap_parts=parts), False

    def _check_gap_call(self, entry: EntrySpec, case: CaseSpec, ref_fn: Any,
                        inputs: tuple[BuiltArg, ...], seeds: list[int],
                        valued: bool) -> CaseReport | None:
        """The whole check of one of the cross-check's calls, picked now (after the runner
        made them all): the judge's clock counted calls whose answers it can check, not
        calls the runner skipped or answered ahead. A report when it fails, else None."""
        i = int.from_bytes(os.urandom(2), "little") % len(seeds)
        mine = clone_args(inputs)
        perturb(mine, seeds[i])
        where = f"event/wall cross-check call {i}: "
        try:
            out, args = self.remote.result({"op": "gap_output", "i": i}, mine)
        except RunnerLost:
            raise
        except BaseException as e:
            return self._failed(case, "error", e, where)[0]
        try:
            ref, base = self._reference(entry, ref_fn, mine, None, valued)
        except BaseException as e:
            return self._failed(case, "ref_error", e, where)[0]
        if not valued:
            report, _ = self._unvalued(entry, case, mine, out, args, base, where)
        else:
            report, _ = self._judge(entry, case, out, args, mine, ref, base, where)
        return report if report.verdict != "pass" else None
