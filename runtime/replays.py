"""The checking job's extra runs of a passing case: the anti-hack re-runs.

The determinism re-run (uninitialised memory poisoned), L2's ghost replay (Triton launches
skipped, in the replay runner where kgb started one: runtime.replay_runner) and L3's device
trace (the call under the profiler, in the runner: runtime.trace). Replays is a base of
runtime.evaluator's Evaluator.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import torch

from runtime.checking import Checks
from runtime.compare import did_nothing
from runtime.device import is_oom
from runtime.ghost import POISONS
from runtime.inputs import BuiltArg
from runtime.job import CaseSpec, EntrySpec, Job, runs_l3
from runtime.records import CaseReport, describe
from runtime.source import cap
from runtime.remote import Remote, ReplayLost, RunnerLost
from runtime.trace import Kernel, kernel_sum_us, sum_judge
from runtime.trace import judge as trace_judge
from runtime.wire import REPLAY_FD
from runtime.wire import Channel as WireChannel


def replay_remote(job: Job, device: torch.device) -> Remote | None:
    """The replay runner kgb started for this job (fd REPLAY_FD, a socket), when the job runs
    the L2 replay; None: the replay runs in the runner."""
    if not (job.ghost and job.mode == "evaluate" and not job.mutant and not job.rounds):
        return None
    try:
        if not stat.S_ISSOCK(os.fstat(REPLAY_FD).st_mode):
            return None
    except OSError:
        return None
    return Remote(WireChannel.from_fd(REPLAY_FD, device), ReplayLost)


def _trace_of(head: dict[str, Any]) -> tuple[list[Kernel], set[str], float]:
    """L3's trace as the runner reports it (evidence from the candidate's own process: a
    malformed one fails closed)."""
    ks, names, ev = head.get("kernels"), head.get("triton_names"), head.get("event_us")
    if not (isinstance(ks, list) and isinstance(names, list) and isinstance(ev, (int, float))
            and all(isinstance(k, list) and len(k) == 2 and isinstance(k[0], str)
                    and isinstance(k[1], (int, float)) for k in ks)
            and all(isinstance(n, str) for n in names)):
        raise ValueError("the runner sent a malformed trace")
    return [Kernel(k[0], float(k[1])) for k in ks], set(names), float(ev)


class Replays(Checks):
    """The re-runs of a passing case; the state is set by Evaluator.__init__."""

    replay: Remote | None
    replay_sent: bool  # its load request is sent (start_replay)
    replay_loaded: bool
    _traced: set[str]
    _trace_times: tuple[float, float] | None
    _rerun_done: set[str]

    def _ghost(self, entry: EntrySpec, case: CaseSpec,
               inputs: tuple[BuiltArg, ...], ref: tuple[Any, tuple[BuiltArg, ...]],
               base: tuple[Any, tuple[BuiltArg, ...]]) -> CaseReport | None:
        """L2: the case again with Triton launches skipped, under each poison, in the replay
        runner where there is one. A report when the outputs match the reference every time
        (or the replay fails: fail closed)."""
        launches = 0
        remote, failed = self._replay_runner(case)
        if failed:
            return failed
        for which in range(len(POISONS)):
            try:
                out, args, head = self._cand(entry, inputs, f"ghost{which}", remote)
                n = head.get("launches")
                launches = n if isinstance(n, int) else 0
            except RunnerLost:
                raise
            except BaseException as e:
                if is_oom(e):
                    raise  # the GPU's memory, not the candidate: run() runs the case again
                return CaseReport(case.id, "hack", message=cap(
                    "L2 ghost replay: with its Triton launches skipped the candidate raised "
                    f"(the check fails closed): {describe(e)}"))
            if self._check(entry, case, out, args, ref, base).verdict != "pass":
                return None
            if did_nothing(out, args, inputs, entry.mutates):
                return None  # the right answer is the untouched input: nothing to judge
        return CaseReport(case.id, "hack", message=(
            f"L2 ghost replay: the outputs are right with all {launches} Triton launches "
            "skipped and every allocation poisoned, so no Triton kernel computed them"))

    def _replay_runner(self, case: CaseSpec) -> tuple[Remote | None, CaseReport | None]:
        """The replay runner, the candidate loaded in it at the first replay of the job; or
        the report of a candidate that would not load there (it loaded in the runner: the
        check fails closed, unless the platform would not start)."""
        if self.replay is None or self.replay_loaded:
            return self.replay, None
        if not self.replay_sent:
            self.start_replay()
        fatal = self.replay.load_reply()
        if fatal is None:
            self.replay_loaded = True
            return self.replay, None
        env = fatal.get("verdict") == "env_error"
        return None, CaseReport(case.id, "error" if env else "hack", message=cap(
            "L2 ghost replay: the candidate did not load in the replay's own process"
            f"{'' if env else ' (the check fails closed)'}: {fatal.get('message', '')}"))

    def start_replay(self) -> None:
        """Sends the replay runner its load request; the answer is read at the first replay
        (_replay_runner). On a GPU the judge sends it before the job's first case, so that the
        replay runner's start (torch, CUDA, the candidate's import: seconds) overlaps the
        cases before the first one that passes instead of delaying it; on a CPU platform only
        at the first replay (its cores are what the rest of the machine waits for, and a job
        that never passes a case then never starts one)."""
        if self.replay is None or self.replay_sent:
            return
        job = self.job
        self.replay.load_send(job.candidate, job.platform, [e.name for e in job.entries],
                              False, job.library.wire() if job.library else None)
        self.replay_sent = True

    def _rerun(self, entry: EntrySpec, case: CaseSpec,
               inputs: tuple[BuiltArg, ...], ref: tuple[Any, tuple[BuiltArg, ...]],
               base: tuple[Any, tuple[BuiltArg, ...]]) -> CaseReport | None:
        """The determinism re-run, on the first passing case of each entry and on the timed
        cases: the candidate once more on fresh copies of the inputs, with every tensor it gets
        from torch.empty and kin filled with poison. It must pass again: a kernel that reads
        memory it never wrote (right only while fresh allocations happen to hold zeros or the
        previous call's values) or that changes its answer between calls fails here."""
        if not case.timed and entry.name in self._rerun_done:
            return None
        self._rerun_done.add(entry.name)
        try:
            out, args, _ = self._cand(entry, inputs, "poison")
        except RunnerLost:
            raise
        except BaseException as e:
            if is_oom(e):
                # As in _ghost; the rerun of the case must re-run this too (else a candidate
                # that raised out of memory here once would skip it for the entry).
                self._rerun_done.discard(entry.name)
                raise
            return CaseReport(case.id, "error", message=cap(
                f"determinism re-run (uninitialised memory poisoned) raised: {describe(e)}"))
        res = self._check(entry, case, out, args, ref, base)
        if res.verdict == "pass":
            return None
        return CaseReport(case.id, "mismatch" if res.verdict == "mismatch" else res.verdict,
                          res.max_abs_err, res.tol_use, message=cap(
                              "determinism re-run: run again with uninitialised memory "
                              "poisoned, the candidate's output is wrong (it reads memory it "
                              f"never wrote, or keeps state across calls): {res.message}"))

    def _device_trace(self, entry: EntrySpec, case: CaseSpec,
                      inputs: tuple[BuiltArg, ...]) -> CaseReport | None:
        """L3 on the GPU's checking pass: the timed cases (large, where foreign compute shows)
        and the first passing case of each entry, once more under the profiler."""
        if not runs_l3(self.job):
            return None
        if not case.timed and entry.name in self._traced:
            return None
        self._traced.add(entry.name)
        try:
            head = self.remote.trace(entry.name, inputs, entry.mutates, self._recipe_for(inputs))
            self._count_compile(head)
            kernels, names, event_us = _trace_of(head)
        except RunnerLost:
            raise
        except BaseException as e:
            if is_oom(e):  # as in _rerun; a trace the profiler could not record is one too
                self._traced.discard(entry.name)
                raise
            return CaseReport(case.id, "hack", message=cap(
                f"L3 device trace: the traced call failed (the check fails closed): {describe(e)}"))
        if head.get("did_nothing") is True:
            return None  # nothing computed: no kernel is expected
        self._trace_times = (round(kernel_sum_us(kernels), 3), round(event_us, 3))
        finding = (trace_judge(kernels, names, pointer_tables="data_ptr" in self.job.allow)
                   or sum_judge(*self._trace_times))
        return CaseReport(case.id, "hack", message=cap(finding)) if finding else None
