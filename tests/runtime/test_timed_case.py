"""Evaluator._timed_case, in process on the CPU: the timing pass's order of calls, the check of
the last timed call and of a cross-check call, and the timing bound. The runner is a stand-in
that calls the candidate here (LocalRemote); the GPU parts (time_case_remote,
remote_wall_gap, the L2 flush, synchronisation) are stand-ins that call both functions the way
they do, on fresh copies."""

import json
import types
from typing import Any

import pytest
import torch

import runtime.timed as timed
import runtime.timing as timing
from runtime.evaluator import Evaluator
from runtime.inputs import call, clone_args
from runtime.job import parse_job
from runtime.records import CaseReport
from runtime.timing import Timing, TimedCall, TimingError

ROUNDS = 5


def module(**fns: Any) -> types.ModuleType:
    m = types.ModuleType("kgb_test_module")
    for name, fn in fns.items():
        setattr(m, name, fn)
    return m


def double(x: torch.Tensor) -> torch.Tensor:
    return x * 2


REFERENCE = module(double=double)


def job_line(kind: str = "compute", mutates: tuple[str, ...] = ()) -> bytes:
    tensor = {"shape": [64, 8], "dtype": "float32", "layout": "contiguous", "dist": "normal",
              "scale": 1}
    return json.dumps({
        "type": "job", "protocol": 1, "platform": "cuda",
        "task": {"op": "double", "source": "aten", "dir": "/nonexistent", "kind": kind,
                 "entries": [{"name": "double", "mutates": list(mutates)}]},
        "candidate": "/nonexistent/candidate.py", "timing": {"warmup": 1, "rounds": ROUNDS},
        "cases": [{"id": 7, "entry": "double", "seed": 11, "timed": True, "atol": 1e-6,
                   "rtol": 1e-6, "axes": {}, "args": [{"name": "x", "tensor": tensor}]}]}
    ).encode()


class LocalRemote:
    """The runner, in process: the candidate module's entries called on copies of the args,
    and the runner's side of the timing requests (runtime.runner)."""

    def __init__(self, candidate: types.ModuleType) -> None:
        self.candidate = candidate
        self.last: TimedCall | None = None
        self.gap: list[TimedCall] = []

    def call(self, entry: str, args: Any, mode: str = "plain",
             recipe: Any = None) -> tuple[Any, Any, dict]:
        mine = clone_args(args)
        return call(getattr(self.candidate, entry), mine), mine, {}

    def replaced(self) -> None:
        return None

    def warm(self, entry: str, args: Any, recipe: Any = None) -> dict:
        self.call(entry, args)
        return {}

    def result(self, header: dict[str, Any], like: Any) -> tuple[Any, Any]:
        t = self.last if header["op"] == "time_last" else self.gap[header["i"]]
        assert t is not None
        return t.output, t.args


class FakeGpu:
    """time_case_remote and remote_wall_gap without a GPU, calling both functions as they do;
    counts the calls each function gets."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail: Exception | None = None,
                 cand_ms: float = 1.0, wall_ms: float = 1.0, hold_ms: float = 0.0):
        self.fail, self.cand_ms, self.wall_ms, self.hold_ms = fail, cand_ms, wall_ms, hold_ms
        self.timed: list[str] = []
        monkeypatch.setattr(timed, "time_case_remote", self.time_case)
        monkeypatch.setattr(timed, "remote_wall_gap", self.wall_gap)
        monkeypatch.setattr(timed, "flush_buffer", lambda device: torch.empty(1))

    def time_case(self, remote: LocalRemote, entry: str, base: Any, inputs: Any, warmup: int,
                  rounds: int, flush: Any, method: str = "events",
                  recipe: Any = None) -> tuple[Timing, TimedCall]:
        if self.fail:
            raise self.fail
        last = {}
        for _ in range(warmup + rounds):
            args = clone_args(inputs)
            last["base"] = TimedCall(call(base, args), args)
            self.timed.append("base")
            out, args, _ = remote.call(entry, inputs)
            last["cand"] = remote.last = TimedCall(out, args)
            self.timed.append("cand")
        # Without its interval: the worker computes it once the GPU is shared again.
        times = tuple(float(2 + i % 3) for i in range(rounds))
        return (Timing(2.0, self.cand_ms, 0.1, 0.1, 2.0 / self.cand_ms, None, rounds,
                       hold_ms=self.hold_ms, warmup=warmup, base_all=times,
                       cand_all=tuple(t * self.cand_ms / 2 for t in times)), last["base"])

    def wall_gap(self, remote: LocalRemote, inputs: Any, flush: Any,
                 seeds: list[int]) -> tuple[float, float, dict[str, Any]]:
        remote.gap = []
        for sd in seeds:
            args = clone_args(inputs)
            timing.perturb(args, sd)
            out, args, _ = remote.call("double", args)
            remote.gap.append(TimedCall(out, args))
            self.timed.append("gap")
        return self.wall_ms, self.wall_ms, {"walls": [self.wall_ms] * len(seeds)}


def evaluate(candidate: types.ModuleType, baseline: types.ModuleType | None = None,
             line: bytes | None = None, remote: LocalRemote | None = None) -> CaseReport:
    job = parse_job(line or job_line())
    ev = Evaluator(job, remote or LocalRemote(candidate), REFERENCE, None,  # type: ignore[arg-type]
                   baseline)
    ev.device = "cpu"
    ev._sync = lambda: None  # type: ignore[method-assign]
    ev._context_lost = lambda e: False  # type: ignore[method-assign]
    ev._give_back_memory = lambda force=False: None  # type: ignore[method-assign]
    report, lost = ev.run(job.cases[0])
    assert not lost
    return report


class Counting:
    """A candidate that counts its calls and misbehaves from call `bad_from` on."""

    def __init__(self, bad_from: int | None = None, how: str = "value"):
        self.calls, self.bad_from, self.how = 0, bad_from, how

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        if self.bad_from is not None and self.calls >= self.bad_from:
            if self.how == "raise":
                raise RuntimeError("launch failed")
            if self.how == "mutate":  # the right output, but the input is left zeroed
                out = x * 2
                x.zero_()
                return out
            return x * 2 + 1
        return x * 2


def test_honest_candidate_is_called_once_before_the_rounds(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    gpu = FakeGpu(monkeypatch)
    cand = Counting()
    r = evaluate(module(double=cand))
    assert r.verdict == "pass", r.message
    # One untimed call (kernels loaded outside the exclusive section), then the rounds only:
    # no check of its own before them.
    assert cand.calls == 1 + gpu.timed.count("cand") + gpu.timed.count("gap") == (
        2 + ROUNDS + timing.GAP_CALLS)
    assert r.speedup == 2.0 and r.timed_output_ok and r.baseline == "reference"
    # The interval is computed after the rounds, from their times (exactly 2x in each round).
    assert r.speedup_ci_low == r.speedup_ci_high == 2.0
    # The record counts the calls: untimed, warm-up (1 here), rounds, cross-check (faked here).
    assert (r.cand_calls, r.base_calls) == (2 + ROUNDS + timing.GAP_CALLS, 2 + ROUNDS)
    assert set(r.phase_ms or {}) >= {"inputs", "call", "wait", "time", "gap", "reference", "check"}


def test_wrong_when_called_again_fails_on_the_last_timed_call(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    FakeGpu(monkeypatch)
    r = evaluate(module(double=Counting(bad_from=3)))
    assert r.verdict == "mismatch" and r.speedup is None
    assert r.message and r.message.startswith("last timed call: output:")


def test_mutating_input_when_timed_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeGpu(monkeypatch)
    r = evaluate(module(double=Counting(bad_from=2, how="mutate")))
    assert r.verdict == "mutated_input"
    assert r.message == ("last timed call: input 'x' was modified, but the op does not mutate "
                         "it")


def test_error_in_the_untimed_call_is_the_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    gpu = FakeGpu(monkeypatch)
    r = evaluate(module(double=Counting(bad_from=1, how="raise")))
    assert r.verdict == "error" and "launch failed" in (r.message or "")
    assert gpu.timed == []  # never timed


def test_error_in_the_baseline_is_the_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    gpu = FakeGpu(monkeypatch)
    r = evaluate(module(double=Counting()), baseline=module(double=Counting(1, "raise")))
    assert r.verdict == "ref_error" and r.message and r.message.startswith("baseline.py: ")
    assert gpu.timed == []


def test_baseline_that_disagrees_is_the_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeGpu(monkeypatch)
    r = evaluate(module(double=Counting()), baseline=module(double=Counting(3)))
    assert r.verdict == "ref_error"
    assert r.message and r.message.startswith("baseline.py disagrees with the reference")
    ok = evaluate(module(double=Counting()), baseline=module(double=Counting()))
    assert ok.verdict == "pass" and ok.baseline == "baseline.py"


def test_untimeable_call_is_checked_on_a_call_of_its_own(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    FakeGpu(monkeypatch, fail=TimingError("capture failed"))
    r = evaluate(module(double=Counting()))
    assert r.verdict == "pass" and r.speedup is None
    assert r.timing == "not timed (events): capture failed"
    bad = evaluate(module(double=Counting(bad_from=2)))
    assert bad.verdict == "mismatch" and bad.message and bad.message.startswith("output:")


def test_alloc_kind_checks_the_last_timed_calls_metadata(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    FakeGpu(monkeypatch)
    line = job_line(kind="alloc")
    assert evaluate(module(double=Counting(bad_from=3)), line=line).verdict == "pass"
    r = evaluate(module(double=lambda x: x.double()), line=line)
    assert r.verdict == "bad_output" and r.message and "last timed call:" in r.message


def test_a_skipped_cross_check_call_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner answers the cross-check's calls with the timed rounds' last output (not
    computing the perturbed inputs): the call the judge picks afterwards fails."""
    FakeGpu(monkeypatch)
    remote = LocalRemote(module(double=Counting()))
    real_result = remote.result

    def lazy(header: dict[str, Any], like: Any) -> tuple[Any, Any]:
        if header["op"] == "gap_output":
            return real_result({"op": "time_last"}, like)
        return real_result(header, like)
    remote.result = lazy  # type: ignore[method-assign]
    r = evaluate(remote.candidate, remote=remote)
    # Its arguments are not the perturbed ones either: whichever check says so first.
    assert r.verdict in ("mismatch", "mutated_input") and r.speedup is None
    assert r.message and r.message.startswith("event/wall cross-check call ")


def test_a_reported_time_the_judges_clock_does_not_allow_is_a_hack(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner reports 0.01 ms per call while checked calls took 1 ms each on the judge's
    clock: a hack, and no speedup is kept. Within the slack (the rounds' hold, under which
    host work is not timed, and a margin), the same candidate passes."""
    FakeGpu(monkeypatch, cand_ms=0.01, wall_ms=1.0)
    r = evaluate(module(double=Counting()))
    assert r.verdict == "hack" and r.speedup is None
    assert r.message and r.message.startswith("timing bound:")
    assert r.gap_parts == {"walls": [1.0] * timing.GAP_CALLS}  # the finding's parts, kept
    FakeGpu(monkeypatch, cand_ms=0.01, wall_ms=0.25)
    r = evaluate(module(double=Counting()))
    assert r.verdict == "pass" and r.gap_parts == {"walls": [0.25] * timing.GAP_CALLS}
    FakeGpu(monkeypatch, cand_ms=0.01, wall_ms=1.0, hold_ms=1.0)
    assert evaluate(module(double=Counting())).verdict == "pass"
