"""The Evaluator: one job's cases, each run to its report.

Per case: build the inputs (kept pristine), run the candidate first on its own layout-preserving
copies (in its runner), then the reference on float64 copies (unless the entry's reference
precision is native), then the baseline (the reference on native copies), then compare
(runtime.checking); a passing case of a checking job gets the re-runs of runtime.replays, and
a timed case of a timing job on the GPU runs the timed rounds first (runtime.timed). A validity
job judges the task's reference alone. A case that runs out of device memory runs again.
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import ModuleType
from typing import Any

import torch

from runtime.compare import leaf_tensors
from runtime.clocks import Phases
from runtime.device import OutOfMemory, give_back_memory, is_oom
from runtime.gpulock import GpuLock
from runtime.inputs import BuiltArg, build_args, call, clone_args
from runtime.job import CaseSpec, Job
from runtime.mutants import apply as apply_mutant
from runtime.records import CaseReport
from runtime.source import cap
from runtime.remote import Remote
from runtime.replays import Replays
from runtime.timed import TimedCases

_VALIDITY_SEED_XOR = 0x5DEECE66D  # the second input draw of a validity check
# Device memory is shared by the checking slots of a GPU (and by the timing workers of one):
# on the H200, 16 slots drawing their largest cases at once ran it out of memory, and 6 of 110
# shipped solutions failed a case with the other workers' memory, not their own (a warm-cache
# run, bench/results/h200-2026-12-04c). A case that raises torch's out-of-memory error is
# therefore run again after each of these waits, with this worker's cached blocks given back
# first; only an error that outlasts them all is the case's verdict (runtime.device says which
# errors count).

_OOM_WAITS_S = (1.0, 2.0, 4.0, 8.0, 16.0)


def _flat_outputs(out: Any, args: tuple[BuiltArg, ...], mutates: tuple[str, ...]) -> torch.Tensor:
    """Every output element (returned tensors and mutated arguments) as one float64 vector."""
    parts = [out] if isinstance(out, torch.Tensor) else [
        o for o in (out if isinstance(out, (tuple, list)) else []) if isinstance(o, torch.Tensor)]
    if not isinstance(out, (torch.Tensor, tuple, list)) and isinstance(out, (int, float, bool)):
        parts.append(torch.tensor([float(out)]))
    seen = {p.data_ptr() for p in parts}  # an out= or in-place op returns what it mutated
    parts += [t for a in args if a.name in mutates for t in leaf_tensors(a.value)
              if t.data_ptr() not in seen]
    flat = [(p.abs() if p.is_complex() else p).detach().to("cpu", torch.float64).reshape(-1)
            for p in parts]
    return torch.cat(flat) if flat else torch.zeros(0, dtype=torch.float64)


class Evaluator(TimedCases, Replays):
    """Runs the cases of one job against a loaded candidate and the task's reference."""

    def __init__(self, job: Job, remote: Remote, reference: ModuleType | None,
                 reference_error: str | None, baseline: ModuleType | None = None,
                 baseline_note: str | None = None, lock: GpuLock | None = None,
                 replay: Remote | None = None) -> None:
        self.job = job
        self.lock = lock or GpuLock(None)
        self.remote = remote  # the candidate, in the runner (runtime.remote)
        # The L2 replay's runner (runtime.replay_runner): asked to load before the first case
        # on a GPU, at the first replay elsewhere (Replays.start_replay); None: kgb started
        # none, the replay runs in the runner.
        self.replay = replay
        self.replay_sent = False
        self.replay_loaded = False
        self.reference = reference
        self.reference_error = reference_error
        self.baseline = baseline  # the task's baseline.py (timing jobs only), or None
        self.baseline_note = baseline_note  # why there is none although the task has one
        self.device = "cuda:0" if job.platform == "cuda" else "cpu"
        self._flush: torch.Tensor | None = None  # L2 flush buffer, allocated at the first timing
        self._traced: set[str] = set()  # entries with an L3 trace already (runtime.trace)
        self._trace_times: tuple[float, float] | None = None  # the last trace's (kernels, events)
        self._rerun_done: set[str] = set()  # entries with a determinism re-run already
        self._phases = Phases(time.perf_counter())  # the current case's (run() resets it)
        self.compile_ms = 0.0  # inside Triton's compile, in the runner, as it reports
        # The current case's inputs and the recipe the runner builds them from (_cand).
        self._recipe: dict[str, Any] | None = None
        self._recipe_of: tuple[BuiltArg, ...] | None = None

    def _validity(self, case: CaseSpec) -> tuple[CaseReport, bool]:
        """Is the reference output of this case informative: not constant, input-dependent?"""
        entry = self.job.entry(case.entry)
        ref_fn = getattr(self.reference, entry.name, None)
        if not callable(ref_fn):
            return CaseReport(case.id, "ref_error", message=self.reference_error or
                              f"reference.py defines no callable '{entry.name}'"), False
        try:
            outs = []
            for seed in (case.seed, case.seed ^ _VALIDITY_SEED_XOR):
                args = clone_args(build_args(case.args, seed, self.device))
                out = call(ref_fn, args)
                outs.append(_flat_outputs(out, args, entry.mutates))
        except BaseException as e:
            return self._failed(case, "ref_error", e)
        a, b = outs
        # A scalar op's one value is judged by its dependence on the inputs alone.
        if a.numel() == 0 or (a.numel() == 1 and self.job.kind != "scalar"):
            return CaseReport(case.id, "skipped", message="output too small to judge"), False

        def same(x: torch.Tensor, y: torch.Tensor) -> bool:
            return bool(((x == y) | (x.isnan() & y.isnan())).all())

        if a.numel() > 1 and same(a, a[:1].expand_as(a)):
            return CaseReport(case.id, "degenerate", message="constant output"), False
        # An output whose size changes with the data (boolean-mask indexing) depends on it.
        if a.shape == b.shape and same(a, b):
            return CaseReport(case.id, "degenerate",
                              message="output does not depend on the input values"), False
        return CaseReport(case.id, "pass"), False

    def run(self, case: CaseSpec) -> tuple[CaseReport, bool]:
        """Evaluate one case; returns its report and whether the CUDA context was lost."""
        t0 = time.perf_counter()
        self._trace_times = None  # a trace's times belong to its own case only
        self._phases = Phases(t0)
        compiled = self.compile_ms
        spans = len(self.lock.exclusive_spans)
        retries = 0
        try:
            while True:
                self.lock.shared()
                self._phases.mark("wait")
                try:
                    report, lost = (self._validity(case) if self.job.mode == "validity"
                                    else self._evaluate(case))
                    break
                except BaseException as e:
                    if not (isinstance(e, OutOfMemory) or is_oom(e)):
                        raise
                    if retries == len(_OOM_WAITS_S):
                        if not isinstance(e, OutOfMemory):
                            raise  # out of memory in the harness's own work: as any error
                        report, lost = replace(e.report, message=cap(
                            f"{e.report.message} (out of device memory in each of "
                            f"{retries + 1} attempts)")), False
                        break
                # Outside the handler, so the error's frames (and their tensors) are gone.
                self._phases.mark("check")
                self.lock.release()
                self._give_back_memory(force=True)
                time.sleep(_OOM_WAITS_S[retries])
                retries += 1
            self._phases.mark("check")  # what ran after the last mark
            self._give_back_memory()
        finally:
            self.lock.release()
        if len(self.lock.exclusive_spans) > spans:
            report = replace(report, gpu_exclusive=self.lock.exclusive_spans[-1])
        return replace(report, ms=(time.perf_counter() - t0) * 1e3,
                       phase_ms=self._phases.rounded(), oom_retries=retries or None,
                       compile_ms=round(self.compile_ms - compiled, 3)), lost

    def _give_back_memory(self, force: bool = False) -> None:
        """Return this worker's cached device memory to the GPU: always after running out of
        it, else in a checking job when more than runtime.device.RESERVED_KEEP_BYTES is
        cached. A timing job keeps its cache: its few workers per GPU have room, and
        allocating its large inputs afresh for every case would lengthen the serial phase."""
        if self.job.platform == "cuda" and (force or not self.job.rounds):
            give_back_memory(self.device, force)

    def _evaluate(self, case: CaseSpec) -> tuple[CaseReport, bool]:
        entry = self.job.entry(case.entry)
        ref_fn = getattr(self.reference, entry.name, None)
        if not callable(ref_fn):
            return CaseReport(case.id, "ref_error", message=self.reference_error or
                              f"reference.py defines no callable '{entry.name}'"), False
        on_device = case.timed and self.job.platform == "cuda"
        try:
            inputs = build_args(case.args, case.seed, self.device, draw_on_device=on_device)
        except Exception as e:
            return self._failed(case, "ref_error", e, "building inputs: ")
        self._recipe_of = inputs
        self._recipe = {"args": list(case.raw_args), "seed": case.seed, "on_device": on_device}
        self._sync()
        self._phases.mark("inputs")
        if self._timing_pass(case):
            return self._timed_case(entry, case, ref_fn, inputs)
        try:
            cand_out, cand_in, _ = self._cand(entry, inputs)
            if self.job.mutant:
                cand_out = apply_mutant(self.job.mutant, cand_out, cand_in, entry.mutates,
                                        case.atol, case.rtol)
        except BaseException as e:
            return self._failed(case, "error", e)
        self._phases.mark("call")
        valued = self.job.kind not in ("alloc", "random")
        try:
            ref, base = self._reference(entry, ref_fn, inputs, valued=valued)
        except BaseException as e:
            return self._failed(case, "ref_error", e)
        self._phases.mark("reference")
        if not valued:
            return self._unvalued(entry, case, inputs, cand_out, cand_in, base)
        report, lost = self._judge(entry, case, cand_out, cand_in, inputs, ref, base)
        if report.verdict != "pass":
            return report, lost
        # The determinism re-run, L2 and L3 run in the checking job, on these very cases; the
        # timing job (serial on the GPU) does not repeat them: its check of the last timed
        # call's output remains (_timed_case).
        if (self.job.ghost and self.job.mode == "evaluate" and not self.job.mutant
                and not self.job.rounds):
            flagged = self._rerun(entry, case, inputs, ref, base)
            if not flagged and entry.ghost:
                flagged = (self._ghost(entry, case, inputs, ref, base)
                           or self._device_trace(entry, case, inputs))
            if flagged:
                return flagged, False
            if self._trace_times:
                report = replace(report, trace_kernel_us=self._trace_times[0],
                                 trace_event_us=self._trace_times[1])
                self._trace_times = None
        return report, False
