"""Worker protocol loop: read one job, evaluate the candidate case by case, report JSON lines.

`python -m runtime.worker` speaks docs/protocol.md: hello, one job line in, then loaded or fatal,
one case line per case, done. The protocol channel is a private duplicate of the original
stdout; fd 1 and sys.stdout are pointed at stderr, so nothing the candidate, the reference or a
library prints can corrupt it. Exceptions become protocol records here and only here.

Before the candidate is imported, runtime.guards scans its syntax tree (anti-hack layer L1); a
candidate with findings gets the fatal verdict `hack` and is never imported.

Per case: build the inputs (kept pristine), run the candidate first on its own layout-preserving
copies, then the reference on float64 copies (unless the entry's reference precision is native),
then the baseline (the reference on native copies), then compare. A timed case of a timing job
on the GPU runs the timed rounds first and compares their last call (Evaluator._timed_case).
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import stat
import sys
import time
import traceback
from dataclasses import dataclass, fields, replace
from types import ModuleType
from typing import Any, BinaryIO, ClassVar

import numpy
import torch
import triton

from runtime.compare import Result, aliases, compare, find_mutation, identical, merge
from runtime.ghost import POISONS
from runtime.trace import judge as trace_judge
from runtime.trace import Kernel, NotRecorded, kernel_sum_us, sum_judge
from runtime.gpulock import GpuLock
from runtime.verdicts import Verdict, named
from runtime.gpulock import from_env as gpu_lock_from_env
from runtime.guards import Finding, scan
from runtime.kinds import (KINDS, Sample, format_mismatch, meta_compare, random_check,
                           view_mismatch)
from runtime.inputs import ArgSpec, BuiltArg, build_args, call, clone_args, parse_arg, upcast_args
from runtime.mutants import MUTANTS
from runtime.remote import Remote, RemoteError, ReplayLost, RunnerLost
from runtime.wire import PEER_FD, REPLAY_FD
from runtime.wire import Channel as WireChannel
from runtime.mutants import apply as apply_mutant
from runtime.timing import METHODS as TIMING_METHODS
from runtime.timing import (GAP_CALLS, TimingError, bound_judge, flush_buffer, gap_judge,
                            perturb, remote_wall_gap, time_case_remote)

Call = tuple[Any, tuple[BuiltArg, ...]]  # a call's output and the arguments it was called on

__all__ = ["PROTOCOL", "EntrySpec", "CaseSpec", "Job", "CaseReport", "parse_job", "main"]

PROTOCOL = 1  # the version of docs/protocol.md spoken here
_JOB_CAP_BYTES = 64 << 20  # a job line: 4096 cases of a few descriptors each stay far below
_MESSAGE_CAP_BYTES = 1024  # message and trace caps keep each line far below kgb's 1 MiB
_TRACE_CAP_BYTES = 2048
_TRACE_FRAMES = 6  # the frames nearest the raise say where a kernel or launch failed
_FINDINGS_CAP = 20  # L1 findings listed in a fatal line; the trace lists more, capped in bytes
_JSON_INF = 1e308  # JSON has no Infinity; stands for an unbounded tol_use or error
_VALIDITY_SEED_XOR = 0x5DEECE66D  # the second input draw of a validity check
# Text of errors after which a CUDA context is unusable (sticky errors); other exceptions on the
# cuda platform are followed by a probe of the context.
_CUDA_LOST_MARKERS = ("CUDA error", "Triton Error [CUDA]", "illegal memory access",
                      "device-side assert", "misaligned address", "unspecified launch failure")
# Device memory is shared by the checking slots of a GPU (and by the timing workers of one):
# on the H200, 16 slots drawing their largest cases at once ran it out of memory, and 6 of 110
# shipped solutions failed a case with the other workers' memory, not their own (a warm-cache
# run, bench/results/h200-2026-12-04c). A case that raises torch's out-of-memory error is
# therefore run again after each of these waits, with this worker's cached blocks given back
# first; only an error that outlasts them all is the case's verdict. And a checking worker
# whose cached blocks exceed _RESERVED_KEEP_BYTES after a case gives them back, so an idle
# worker does not sit on another's memory.
# A CUDA driver call that cannot allocate (a module load, a context's own buffers) raises
# torch.AcceleratorError "CUDA error: out of memory" instead (bench/gpu-oom.sh); that error is
# not sticky, so it is retried too rather than taken for a lost context.
_OOM_ERRORS = (getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError),
               torch.cuda.OutOfMemoryError)
_OOM_WAITS_S = (1.0, 2.0, 4.0, 8.0, 16.0)
_RESERVED_KEEP_BYTES = 1 << 30
# Harness frames are left out of traces: they are the same in every one.
_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
EXIT_JOB = 3  # STYLE §3: bad input data (the job line)
EXIT_FATAL = 1  # ran, and the answer is no (candidate failed to load)
EXIT_ENV = 4  # STYLE §3: the environment (the platform would not start)


@dataclass(frozen=True)
class EntrySpec:
    """An entry point of the task, as the job gives it."""

    name: str
    mutates: tuple[str, ...] = ()
    returns: str | tuple[str, ...] = "value"  # value, none, an argument name, or a tuple of them
    reference_precision: str = "float64"  # float64 or native
    ghost: bool = True  # false: the entry is exempt from the L2 ghost replay (task.json)


@dataclass(frozen=True)
class CaseSpec:
    """One case: its entry, seed, tolerance and fully resolved arguments."""

    id: int
    entry: str
    seed: int
    timed: bool
    atol: float
    rtol: float
    args: tuple[ArgSpec, ...]
    raw_args: tuple[Any, ...] = ()  # the job's JSON of args: what the runner builds from


@dataclass(frozen=True)
class Job:
    """The parsed job line."""

    platform: str  # interpreter or cuda
    op: str
    task_dir: str
    entries: tuple[EntrySpec, ...]
    candidate: str
    warmup: int | None  # None: the platform does not time
    rounds: int | None
    cases: tuple[CaseSpec, ...]
    mutant: str | None = None  # runtime.mutants: break the candidate's outputs on purpose
    mode: str = "evaluate"  # or "validity": judge the task's reference, not the candidate
    # after the first failing case the rest are "skipped"; "entry": the rest of its entry
    stop_on_fail: bool | str = False
    allow: frozenset[str] = frozenset()  # the task's extra L1 allowances (runtime.guards.scan)
    kind: str = "compute"  # the task's kind: which checks apply (runtime.kinds)
    ghost: bool = False  # run the L2 ghost replay on passing cases (runtime.ghost)
    timing_method: str = "events"  # runtime.timing.METHODS

    def entry(self, name: str) -> EntrySpec:
        return next(e for e in self.entries if e.name == name)


@dataclass(frozen=True)
class Hello:
    TYPE: ClassVar[str] = "hello"
    protocol: int
    python: str
    torch: str
    triton: str
    numpy: str


@dataclass(frozen=True)
class Loaded:
    TYPE: ClassVar[str] = "loaded"
    import_ms: float


@dataclass(frozen=True)
class CaseReport:
    """One `case` line; None fields are left out of the line."""

    TYPE: ClassVar[str] = "case"
    id: int
    verdict: Verdict
    max_abs_err: float | None = None
    tol_use: float | None = None
    base_tol_use: float | None = None
    bad: int | None = None
    first_bad: int | None = None
    message: str | None = None
    trace: str | None = None
    ms: float | None = None
    time_base_ms: float | None = None
    time_cand_ms: float | None = None
    time_base_iqr_ms: float | None = None
    time_cand_iqr_ms: float | None = None
    speedup: float | None = None
    speedup_ci_low: float | None = None  # 95% bootstrap interval of the speedup
    speedup_ci_high: float | None = None
    timed_output_ok: bool | None = None
    rounds: int | None = None  # the calibrated count of timed rounds (runtime.timing)
    timing: str | None = None  # the method, or why the case has no time
    hold_ms: float | None = None  # the stream hold ahead of each timed call (runtime.timing)
    base_hold_ms: float | None = None  # the same ahead of each baseline call
    baseline: str | None = None  # what a timed case's speedup is over (Evaluator._baseline_fn)
    wall_ms: float | None = None  # event/wall cross-check (runtime.timing.wall_gap): medians
    wall_event_ms: float | None = None
    # L3's traced call (runtime.trace.traced): the device activities' summed time and the
    # elapsed time of events around the call on its stream (judged: runtime.trace.sum_judge).
    trace_kernel_us: float | None = None
    trace_event_us: float | None = None
    # A timed case's calls of the candidate and of the baseline in its timing job: the untimed
    # call, the warm-up, the rounds and (candidate) the event/wall cross-check's calls, for
    # bench/throughput.py's own-calls estimate.
    cand_calls: int | None = None
    base_calls: int | None = None
    # Where the case's time went (bench/throughput.py): ms per phase ("wait", "inputs",
    # "call", "reference", "check", "time", "gap") and ms inside Triton's compile() (a cache
    # hit counts: it loads and links).
    phase_ms: dict[str, float] | None = None
    compile_ms: float | None = None
    # With several timing workers on one GPU (runtime.gpulock): the span, in time.monotonic()
    # seconds, during which this case's timed rounds had the GPU alone ("wait" in phase_ms is
    # the time spent waiting for the lock).
    gpu_exclusive: tuple[float, float] | None = None
    # How often the case ran out of device memory and was run again (Evaluator.run).
    oom_retries: int | None = None


@dataclass(frozen=True)
class FatalReport:
    TYPE: ClassVar[str] = "fatal"
    stage: str  # job, setup, scan, load or entry
    verdict: Verdict  # protocol, env_error, syntax_error, import_error, hack or missing_entry
    message: str
    trace: str | None = None
    layer: str | None = None  # the anti-hack layer of a hack verdict: L1
    findings: tuple[dict[str, Any], ...] | None = None  # L1: {line, rule, message} each


@dataclass(frozen=True)
class Done:
    TYPE: ClassVar[str] = "done"
    cases: int
    wall_ms: float


Message = Hello | Loaded | CaseReport | FatalReport | Done


def _is_oom(e: BaseException) -> bool:
    """Torch's out-of-memory error, a CUDA call's (see _OOM_ERRORS), an L3 trace that the
    profiler could not record (runtime.trace.NotRecorded: it lacked memory for its buffers),
    or the runner's report of one of these."""
    if isinstance(e, RemoteError):
        return e.oom
    return isinstance(e, (*_OOM_ERRORS, NotRecorded)) or (
        isinstance(e, RuntimeError) and "CUDA error: out of memory" in str(e))


def context_lost(e: BaseException, device: torch.device) -> bool:
    """Whether this process's CUDA context is unusable after `e` (a sticky error)."""
    if device.type != "cuda":
        return False
    if any(m in f"{type(e).__name__}: {e}" for m in _CUDA_LOST_MARKERS):
        return True
    try:
        torch.cuda.synchronize()
        torch.ones(1, device=device).add_(1).cpu()
        return False
    except BaseException:
        return True


class _OutOfMemory(Exception):
    """A case ran out of device memory; carries the report it gets if no retry succeeds."""

    def __init__(self, report: CaseReport) -> None:
        super().__init__(report.message)
        self.report = report


class Fatal(Exception):
    """Raised while loading; carries the fatal record to send."""

    def __init__(self, report: FatalReport) -> None:
        super().__init__(report.message)
        self.report = report


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, float) and abs(v) == float("inf"):
        return _JSON_INF if v > 0 else -_JSON_INF
    return v


class Channel:
    """Writes protocol records, one JSON object per line, to a file descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, msg: Message) -> None:
        body = {"type": msg.TYPE}
        body.update({f.name: _json_value(getattr(msg, f.name)) for f in fields(msg)
                     if getattr(msg, f.name) is not None})
        data = (json.dumps(body, allow_nan=False) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]


def _cap(text: str, limit: int = _MESSAGE_CAP_BYTES, tail: bool = False) -> str:
    """At most `limit` UTF-8 bytes: the head, or with `tail` the end, marked by '...'."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    if tail:
        return "..." + raw[-(limit - 3):].decode("utf-8", "ignore")
    return raw[:limit - 3].decode("utf-8", "ignore") + "..."


def _describe(e: BaseException) -> str:
    if isinstance(e, RemoteError):
        return _cap(e.message)
    return _cap(f"{type(e).__name__}: {e}")


def _trace(e: BaseException, frames: int | None = _TRACE_FRAMES) -> str:
    """The last `frames` frames (all with None) outside the harness, then the exception."""
    if isinstance(e, RemoteError):
        return _cap(e.trace or "", _TRACE_CAP_BYTES, tail=True)
    tb: list[traceback.FrameSummary] = traceback.extract_tb(e.__traceback__)
    own = [f for f in tb if not (f.filename.startswith(_RUNTIME_DIR + os.sep)
                                 or f.filename.startswith("<frozen importlib"))]
    tb = own or tb[-1:]
    text = "".join(traceback.format_list(tb[-frames:] if frames else tb))
    return _cap(text + "".join(traceback.format_exception_only(type(e), e)),
                _TRACE_CAP_BYTES, tail=True)


_REQUIRED = object()


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


def _field(obj: dict[str, Any], key: str, types: type | tuple[type, ...], path: str,
           default: Any = _REQUIRED) -> Any:
    if key not in obj:
        if default is _REQUIRED:
            raise ValueError(f"{path}.{key}: missing")
        return default
    v = obj[key]
    allowed = types if isinstance(types, tuple) else (types,)
    if not isinstance(v, allowed) or (isinstance(v, bool) and bool not in allowed):
        names = " or ".join(t.__name__ for t in allowed)
        raise ValueError(f"{path}.{key}: expected {names}, got {_cap(repr(v), 80)}")
    return v


def _parse_case(c: Any, path: str, entries: tuple[EntrySpec, ...]) -> CaseSpec:
    if not isinstance(c, dict):
        raise ValueError(f"{path}: expected an object")
    entry = _field(c, "entry", str, path)
    if entry not in {e.name for e in entries}:
        raise ValueError(f"{path}.entry: '{entry}' is not an entry of the task")
    args = []
    for j, a in enumerate(_field(c, "args", list, path)):
        try:
            args.append(parse_arg(a))
        except ValueError as e:
            raise ValueError(f"{path}.args[{j}]: {e}") from None
    return CaseSpec(_field(c, "id", int, path), entry, _field(c, "seed", int, path),
                    _field(c, "timed", bool, path, False),
                    float(_field(c, "atol", (int, float), path)),
                    float(_field(c, "rtol", (int, float), path)), tuple(args),
                    tuple(c["args"]))


def parse_job(line: bytes) -> Job:
    """Validate and parse the job line; ValueError names the offending field."""
    try:
        obj = json.loads(line)
    except ValueError as err:
        raise ValueError(f"job: not JSON: {err}") from None
    if not isinstance(obj, dict) or obj.get("type") != "job":
        raise ValueError("job: expected an object of type 'job'")
    if _field(obj, "protocol", int, "job") != PROTOCOL:
        raise ValueError(f"job.protocol: worker speaks {PROTOCOL}, got {obj['protocol']}")
    platform = _field(obj, "platform", str, "job")
    if platform not in ("interpreter", "cuda"):
        raise ValueError(f"job.platform: unknown platform '{_cap(platform, 80)}'")
    task = _field(obj, "task", dict, "job")
    entries = []
    for i, e in enumerate(_field(task, "entries", list, "job.task")):
        path = f"job.task.entries[{i}]"
        if not isinstance(e, dict):
            raise ValueError(f"{path}: expected an object")
        mutates = _field(e, "mutates", list, path, [])
        if not all(isinstance(m, str) for m in mutates):
            raise ValueError(f"{path}.mutates: expected a list of argument names")
        precision = _field(e, "reference_precision", str, path, "float64")
        if precision not in ("float64", "native"):
            raise ValueError(f"{path}.reference_precision: unknown '{_cap(precision, 80)}'")
        returns = _field(e, "returns", (str, list), path, "value")
        if isinstance(returns, list):
            if not returns or not all(isinstance(r, str) for r in returns):
                raise ValueError(f"{path}.returns: expected a non-empty list of argument names")
            returns = tuple(returns)
        entries.append(EntrySpec(_field(e, "name", str, path), tuple(mutates), returns,
                                 precision, _field(e, "ghost", bool, path, True)))
    timing = _field(obj, "timing", dict, "job", None)
    warmup = rounds = None
    method = "events"
    if timing is not None:
        warmup = _field(timing, "warmup", int, "job.timing")
        rounds = _field(timing, "rounds", int, "job.timing")
        if warmup < 0 or rounds < 1:
            raise ValueError("job.timing: expected warmup >= 0 and rounds >= 1")
        method = _field(timing, "method", str, "job.timing", "events")
        if method not in TIMING_METHODS:
            raise ValueError(f"job.timing.method: unknown method '{_cap(method, 80)}'")
    cases = tuple(_parse_case(c, f"job.cases[{i}]", tuple(entries))
                  for i, c in enumerate(_field(obj, "cases", list, "job")))
    mutant = _field(obj, "mutant", str, "job", None)
    if mutant is not None and mutant not in MUTANTS:
        raise ValueError(f"job.mutant: unknown mutant '{_cap(mutant, 80)}'")
    stop = _field(obj, "stop_on_fail", (bool, str), "job", False)
    if isinstance(stop, str) and stop != "entry":
        raise ValueError(f"job.stop_on_fail: expected true, false or 'entry', got "
                         f"'{_cap(stop, 80)}'")
    mode = _field(obj, "mode", str, "job", "evaluate")
    if mode not in ("evaluate", "validity"):
        raise ValueError(f"job.mode: unknown mode '{_cap(mode, 80)}'")
    kind = _field(task, "kind", str, "job.task", "compute")
    if kind not in KINDS:
        raise ValueError(f"job.task.kind: unknown kind '{_cap(kind, 80)}'")
    allow = _field(task, "allow", list, "job.task", [])
    if not all(isinstance(a, str) for a in allow):
        raise ValueError("job.task.allow: expected a list of strings")
    return Job(platform, _field(task, "op", str, "job.task", ""),
               _field(task, "dir", str, "job.task"), tuple(entries),
               _field(obj, "candidate", str, "job"), warmup, rounds, cases, mutant, mode,
               stop, frozenset(allow), kind,
               _field(task, "ghost", bool, "job.task", False), method)


def load_module(path: str, role: str) -> ModuleType:
    """Import a file under a name of its own (`_kgb_<role>_<pid>`), registered in sys.modules."""
    name = f"_kgb_{role}_{os.getpid()}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load '{path}'")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _syntax_error(e: SyntaxError, path: str) -> Fatal:
    where = f"{os.path.basename(e.filename or path)}:{e.lineno}"
    return Fatal(FatalReport("load", "syntax_error", _cap(f"{where}: {e.msg}"), _cap(
        "".join(traceback.format_exception_only(type(e), e)), _TRACE_CAP_BYTES, tail=True)))


def _hack(findings: list[Finding]) -> Fatal:
    """The fatal record of an L1 rejection: the first finding, all of them in the trace."""
    return Fatal(FatalReport(
        "scan", "hack", _cap(str(findings[0])),
        _cap("\n".join(map(str, findings)), _TRACE_CAP_BYTES), "L1",
        tuple({"line": f.line, "rule": f.rule, "message": f.message}
              for f in findings[:_FINDINGS_CAP])))


def _scan_candidate(job: Job) -> None:
    """L1: read the candidate as UTF-8 and scan its syntax tree; raise Fatal unless it may load.

    Nothing of the candidate runs here: a rejected candidate is never imported.
    """
    name = os.path.basename(job.candidate)
    try:
        with open(job.candidate, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Fatal(FatalReport("load", "import_error", _describe(e))) from None
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Fatal(FatalReport("load", "import_error", _cap(
            f"{name}: not UTF-8 text (invalid byte at offset {e.start}); candidates must be "
            "UTF-8"))) from None
    if "\0" in source:
        # Python 3.11.2 (Debian 12's) raises ValueError for this where later ones raise
        # SyntaxError: the same verdict either way.
        line = raw.count(b"\n", 0, raw.index(b"\0")) + 1
        raise Fatal(FatalReport("load", "syntax_error", _cap(
            f"{name}:{line}: source code cannot contain null bytes")))
    try:
        findings = scan(source, job.candidate, job.allow)
    except SyntaxError as e:
        raise _syntax_error(e, job.candidate) from None
    except Exception as e:  # the parser gave up (nesting, memory): fail closed
        findings = [Finding(1, 0, "unscannable", _describe(e))]
    if findings:
        raise _hack(findings)


class _Phases:
    """Wall time of a case by phase: mark(name) charges the time since the previous mark to
    `name` (a phase may be charged several times)."""

    def __init__(self, t0: float) -> None:
        self._last = t0
        self.ms: dict[str, float] = {}

    def mark(self, name: str) -> None:
        now = time.perf_counter()
        self.ms[name] = self.ms.get(name, 0.0) + (now - self._last) * 1e3
        self._last = now

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 3) for k, v in self.ms.items()}


class _CompileClock:
    """Milliseconds spent inside triton.compiler.compile, which every JIT launch with a new
    specialisation goes through (a cache hit too: it loads and links the binary). Installed
    before any kernel binds it (JITFunction.create_binder imports the name at first launch)."""

    def __init__(self) -> None:
        self.ms = 0.0

    def install(self) -> None:
        import triton.compiler as tc
        compile_fn = tc.compile

        def clocked(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return compile_fn(*args, **kwargs)
            finally:
                self.ms += (time.perf_counter() - t0) * 1e3
        tc.compile = clocked


_compile_clock = _CompileClock()


class Evaluator:
    """Runs the cases of one job against a loaded candidate and the task's reference."""

    def __init__(self, job: Job, remote: Remote, reference: ModuleType | None,
                 reference_error: str | None, baseline: ModuleType | None = None,
                 baseline_note: str | None = None, lock: GpuLock | None = None,
                 replay: Remote | None = None) -> None:
        self.job = job
        self.lock = lock or GpuLock(None)
        self.remote = remote  # the candidate, in the runner (runtime.remote)
        # The L2 replay's runner (runtime.replay_runner), loaded at the first replay; None:
        # kgb started none, the replay runs in the runner.
        self.replay = replay
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
        self._phases = _Phases(time.perf_counter())  # the current case's (run() resets it)
        self.compile_ms = 0.0  # inside Triton's compile, in the runner, as it reports
        # The current case's inputs and the recipe the runner builds them from (_cand).
        self._recipe: dict[str, Any] | None = None
        self._recipe_of: tuple[BuiltArg, ...] | None = None

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
        ms = head.get("compile_ms")
        if isinstance(ms, (int, float)) and 0 <= ms < 1e9:
            self.compile_ms += ms
        return out, new_args, head

    def _failed(self, case: CaseSpec, verdict: Verdict, e: BaseException,
                prefix: str = "") -> tuple[CaseReport, bool]:
        """The report of a case that raised; an out-of-memory error is raised on to run(),
        which retries the case (_OOM_WAITS_S); a lost runner ends the job (main)."""
        if isinstance(e, RunnerLost):
            raise e
        if _is_oom(e):
            raise _OutOfMemory(CaseReport(case.id, verdict, message=_cap(prefix + _describe(e)),
                                          trace=_trace(e)))
        lost = self._context_lost(e)
        return CaseReport(case.id, "error" if lost else verdict,
                          message=_cap(prefix + _describe(e)), trace=_trace(e)), lost

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
        self._phases = _Phases(t0)
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
                    if not (isinstance(e, _OutOfMemory) or _is_oom(e)):
                        raise
                    if retries == len(_OOM_WAITS_S):
                        if not isinstance(e, _OutOfMemory):
                            raise  # out of memory in the harness's own work: as any error
                        report, lost = replace(e.report, message=_cap(
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
        it, else in a checking job when more than _RESERVED_KEEP_BYTES is cached
        (_OOM_WAITS_S). A timing job keeps its cache: its few workers per GPU have room, and
        allocating its large inputs afresh for every case would lengthen the serial phase."""
        if self.job.platform != "cuda":
            return
        if force:
            gc.collect()
        if force or (not self.job.rounds
                     and torch.cuda.memory_reserved(self.device) > _RESERVED_KEEP_BYTES):
            torch.cuda.empty_cache()

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

    def _recipe_for(self, args: tuple[BuiltArg, ...]) -> dict[str, Any] | None:
        """How the runner builds `args` itself, when they are the current case's inputs."""
        return self._recipe if self._recipe and args is self._recipe_of else None

    def _baseline_fn(self, entry: EntrySpec, ref_fn: Any) -> tuple[Any, str]:
        """What the speedup of a timed case is over, and its label: the task's baseline.py
        function of the entry's name when it loaded, else the reference on native copies."""
        fn = getattr(self.baseline, entry.name, None) if self.baseline else None
        if callable(fn):
            return fn, BASELINE_FILE
        if self.baseline is not None:
            return ref_fn, f"reference ({BASELINE_FILE} defines no '{entry.name}')"
        return ref_fn, f"reference ({self.baseline_note})" if self.baseline_note else "reference"

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
            return CaseReport(case.id, "ref_error", message=_cap(
                f"reference and baseline disagree: {base_res.message}")), False
        try:
            res = self._check(entry, case, out, args, ref, base)
            mutated = find_mutation(args, inputs, entry.mutates)
        except Exception as e:
            return self._failed(case, "bad_output", e, where + "cannot compare: ")
        if res.verdict == "bad_output":
            return CaseReport(case.id, "bad_output", message=_cap(where + res.message)), False
        if mutated:
            return CaseReport(case.id, "mutated_input", message=_cap(where + mutated)), False
        alias_err = _check_returns(entry, out, args)
        if not alias_err:  # where ATen returns an input's storage, so must the candidate
            alias_err = (view_mismatch(base[0], base[1], out, args)
                         or format_mismatch(base[0], base[1], out))
        if alias_err:
            return CaseReport(case.id, "bad_output", message=_cap(where + alias_err)), False
        report = CaseReport(case.id, res.verdict, res.max_abs_err, res.tol_use,
                            base_res.tol_use, message=_cap(where + res.message)
                            if res.message else None)
        if res.verdict == "mismatch":
            return replace(report, bad=res.bad, first_bad=res.first_bad), False
        return report, False

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
                if _is_oom(e):
                    raise  # the GPU's memory, not the candidate: run() runs the case again
                return CaseReport(case.id, "hack", message=_cap(
                    "L2 ghost replay: with its Triton launches skipped the candidate raised "
                    f"(the check fails closed): {_describe(e)}"))
            if self._check(entry, case, out, args, ref, base).verdict != "pass":
                return None
            if _did_nothing(out, args, inputs, entry.mutates):
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
        job = self.job
        fatal = self.replay.load(job.candidate, job.platform, [e.name for e in job.entries],
                                 False, waiting=True)
        if fatal is None:
            self.replay_loaded = True
            return self.replay, None
        env = fatal.get("verdict") == "env_error"
        return None, CaseReport(case.id, "error" if env else "hack", message=_cap(
            "L2 ghost replay: the candidate did not load in the replay's own process"
            f"{'' if env else ' (the check fails closed)'}: {fatal.get('message', '')}"))

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
            if _is_oom(e):
                # As in _ghost; the rerun of the case must re-run this too (else a candidate
                # that raised out of memory here once would skip it for the entry).
                self._rerun_done.discard(entry.name)
                raise
            return CaseReport(case.id, "error", message=_cap(
                f"determinism re-run (uninitialised memory poisoned) raised: {_describe(e)}"))
        res = self._check(entry, case, out, args, ref, base)
        if res.verdict == "pass":
            return None
        return CaseReport(case.id, "mismatch" if res.verdict == "mismatch" else res.verdict,
                          res.max_abs_err, res.tol_use, message=_cap(
                              "determinism re-run: run again with uninitialised memory "
                              "poisoned, the candidate's output is wrong (it reads memory it "
                              f"never wrote, or keeps state across calls): {res.message}"))

    def _device_trace(self, entry: EntrySpec, case: CaseSpec,
                      inputs: tuple[BuiltArg, ...]) -> CaseReport | None:
        """L3 on the GPU's checking pass: the timed cases (large, where foreign compute shows)
        and the first passing case of each entry, once more under the profiler."""
        if not _traces(self.job):
            return None
        if not case.timed and entry.name in self._traced:
            return None
        self._traced.add(entry.name)
        try:
            out, args, head = self._cand(entry, inputs, "trace")
            kernels, names, event_us = _trace_of(head)
        except RunnerLost:
            raise
        except BaseException as e:
            if _is_oom(e):  # as in _rerun; a trace the profiler could not record is one too
                self._traced.discard(entry.name)
                raise
            return CaseReport(case.id, "hack", message=_cap(
                f"L3 device trace: the traced call failed (the check fails closed): {_describe(e)}"))
        if _did_nothing(out, args, inputs, entry.mutates):
            return None  # nothing computed: no kernel is expected
        self._trace_times = (round(kernel_sum_us(kernels), 3), round(event_us, 3))
        finding = (trace_judge(kernels, names, pointer_tables="data_ptr" in self.job.allow)
                   or sum_judge(*self._trace_times))
        return CaseReport(case.id, "hack", message=_cap(finding)) if finding else None

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
            return CaseReport(case.id, res.verdict, message=_cap(where + res.message)), False
        mutated = find_mutation(args, inputs, entry.mutates)
        if mutated:
            return CaseReport(case.id, "mutated_input", message=_cap(where + mutated)), False
        alias_err = _check_returns(entry, out, args)
        if alias_err:
            return CaseReport(case.id, "bad_output", message=_cap(where + alias_err)), False
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
                return CaseReport(case.id, res.verdict, message=_cap(where + res.message)), False
        return CaseReport(case.id, "pass"), False

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
            note = _cap(f"not timed ({self.job.timing_method}): {e}")
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
                    report = CaseReport(case.id, "ref_error", message=_cap(
                        f"{BASELINE_FILE} disagrees with the reference: {bad.message}"))
            report = replace(report, baseline=label)
        if report.verdict == "pass" and gap is not None:
            report = self._check_gap_call(entry, case, ref_fn, inputs, seeds, valued) or report
        self._phases.mark("check")
        if report.verdict != "pass" or timing is None or gap is None:
            return replace(report, timing=note), lost
        wall_ms, event_ms = gap
        finding = (gap_judge(wall_ms, event_ms)
                   or bound_judge(timing.cand_ms, wall_ms, timing.hold_ms))
        if finding:
            return CaseReport(case.id, "hack", message=_cap(finding), wall_ms=wall_ms,
                              wall_event_ms=event_ms), False
        return replace(report, time_base_ms=timing.base_ms, time_cand_ms=timing.cand_ms,
                       time_base_iqr_ms=timing.base_iqr_ms, time_cand_iqr_ms=timing.cand_iqr_ms,
                       speedup=timing.speedup, timed_output_ok=True,
                       speedup_ci_low=timing.speedup_ci[0] if timing.speedup_ci else None,
                       speedup_ci_high=timing.speedup_ci[1] if timing.speedup_ci else None,
                       rounds=timing.rounds, timing=timing.method, hold_ms=timing.hold_ms,
                       base_hold_ms=timing.base_hold_ms,
                       cand_calls=1 + timing.warmup + timing.rounds + GAP_CALLS,
                       base_calls=1 + timing.warmup + timing.rounds,
                       wall_ms=wall_ms, wall_event_ms=event_ms), False

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


def _did_nothing(out: Any, args: tuple[BuiltArg, ...], pristine: tuple[BuiltArg, ...],
                 mutates: tuple[str, ...]) -> bool:
    """True when every output element is either absent or an input left as it was: returned
    tensors that alias an input, and mutated arguments, hold their pristine values."""
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
               for x, y in zip(_leaf_tensors(a.value), _leaf_tensors(p.value)) if x.numel())


def _leaf_tensors(v: Any) -> list[torch.Tensor]:
    """A tensor argument, or the tensors of a list argument (Tensor[] of vLLM's cache ops)."""
    if isinstance(v, torch.Tensor):
        return [v]
    return [x for x in v if isinstance(x, torch.Tensor)] if isinstance(v, list) else []


def _flat_outputs(out: Any, args: tuple[BuiltArg, ...], mutates: tuple[str, ...]) -> torch.Tensor:
    """Every output element (returned tensors and mutated arguments) as one float64 vector."""
    parts = [out] if isinstance(out, torch.Tensor) else [
        o for o in (out if isinstance(out, (tuple, list)) else []) if isinstance(o, torch.Tensor)]
    if not isinstance(out, (torch.Tensor, tuple, list)) and isinstance(out, (int, float, bool)):
        parts.append(torch.tensor([float(out)]))
    seen = {p.data_ptr() for p in parts}  # an out= or in-place op returns what it mutated
    parts += [t for a in args if a.name in mutates for t in _leaf_tensors(a.value)
              if t.data_ptr() not in seen]
    flat = [(p.abs() if p.is_complex() else p).detach().to("cpu", torch.float64).reshape(-1)
            for p in parts]
    return torch.cat(flat) if flat else torch.zeros(0, dtype=torch.float64)


def _take_stdout() -> int:
    """Move the protocol channel off fd 1: return a private duplicate, send fd 1 to stderr."""
    sys.stdout.flush()
    fd = os.dup(1)  # not inherited by children the candidate might start
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return fd


def _read_job(stream: BinaryIO) -> Job:
    line = stream.readline(_JOB_CAP_BYTES + 1)
    if not line.strip():
        raise ValueError("job: no job line on stdin")
    if len(line) > _JOB_CAP_BYTES:
        raise ValueError(f"job: line longer than {_JOB_CAP_BYTES} bytes")
    return parse_job(line)


# What a case's first call would otherwise import lazily (_preload; runtime.pycache too).
PRELOAD_MODULES = ("torch.fx.experimental.symbolic_shapes", "triton.experimental.gluon")


def _preload() -> None:
    """Before the job, on a machine with a GPU: what the first call of a case would otherwise
    do inside the case, while holding the GPU lock's shared side and so stalling every timed
    round queued behind it (bench/first-call.py on the H200, bench/results/h200-2026-12-04d):
    torch imports sympy lazily, through torch.fx.experimental.symbolic_shapes, the first
    time a candidate calls torch.broadcast_shapes and many other shape helpers (2.9 s, mostly
    compiling sources that have no bytecode cache there), and Triton hashes its own libraries
    for its cache key at the first compile of a process (0.4 s) and imports gluon (0.1 s). A
    standby worker does this while the slot's previous job runs. Best effort: a missing piece
    is left to the case."""
    if torch.version.cuda is None or not torch.cuda.is_available():
        return  # the interpreter: no timed rounds to stall, and every test worker would pay
    try:
        for name in PRELOAD_MODULES:
            importlib.import_module(name)
        from triton.runtime.cache import triton_key
        triton_key()
    except Exception:
        pass


def _autotune_first_config() -> None:
    """On the interpreter, @triton.autotune with several configs benchmarks them through a GPU
    driver that is not there ("0 active drivers"), so an honest autotuned kernel raised. Every
    config scores the same instead, and the autotuner keeps the first (pruned) one: the kernel
    runs with it, and the interpreter's prompt says that each config must be correct."""
    from triton.runtime.autotuner import Autotuner

    def _bench(self: Autotuner, *args: Any, config: Any, **meta: Any) -> list[float]:
        return [0.0, 0.0, 0.0]
    Autotuner._bench = _bench


def setup_platform(platform: str, traces: bool = False) -> None:
    """The platform's switches and CUDA started on the slot's device, in the judge before the
    reference and in the runner before the candidate. `traces`: the runner of a job that runs
    L3 imports what the profiler needs first."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if platform == "interpreter":
        os.environ.setdefault("TRITON_INTERPRET", "1")
        _autotune_first_config()
        return
    torch.cuda.set_device(0)
    # The profiler (L3, runtime.trace) imports torch._dynamo on first use, and that import
    # rebinds torch.manual_seed and others to wrapped versions: done before the snapshot,
    # so that the integrity check does not blame the candidate for it. Only where L3 runs
    # (the checking pass): the import costs a second or more of every timing job.
    if traces:
        importlib.import_module("torch._dynamo")


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


BASELINE_FILE = "baseline.py"


def _load_baseline(job: Job) -> tuple[ModuleType | None, str | None]:
    """The task's baseline.py for a timing job on cuda: (module, None); (None, why) when the
    task has one that does not import here (vLLM not installed, no cuBLAS); (None, None) when
    it has none or the job does not time. docs/task-format.md."""
    path = os.path.join(job.task_dir, BASELINE_FILE)
    if job.platform != "cuda" or not job.rounds or not os.path.exists(path):
        return None, None
    try:
        return load_module(path, "baseline"), None
    except BaseException as e:
        return None, _cap(f"{BASELINE_FILE} did not load ({_describe(e)}): the reference in "
                          "the inputs' dtype instead")


def _traces(job: Job) -> bool:
    """Whether this job runs L3 (Runner._device_trace): on cuda, checking, anti-hack on."""
    return (job.platform == "cuda" and not job.rounds and job.ghost and job.mode == "evaluate"
            and not job.mutant)


EXIT_RUNNER_LOST = 6  # src/sched.h SCHED_EXIT_RUNNER_LOST: kgb tells how the runner ended
EXIT_REPLAY_LOST = 7  # src/sched.h SCHED_EXIT_REPLAY_LOST: the same of the replay runner


def _replay_remote(job: Job, device: torch.device) -> Remote | None:
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


def _fatal_of(h: dict[str, Any]) -> FatalReport:
    """The runner's fatal record, as the judge passes it on (only failing verdicts reach
    here: Remote.load)."""
    verdict = named(h["verdict"]) or "protocol"
    return FatalReport("entry" if verdict == "missing_entry" else "load", verdict,
                       _cap(str(h.get("message", ""))),
                       _cap(str(h["trace"]), _TRACE_CAP_BYTES, tail=True)
                       if h.get("trace") else None)


def main() -> int:
    """Judge one job; the exit status is 0 after done, 3 for a bad job, 1 after another fatal,
    EXIT_RUNNER_LOST when the runner died or broke the channel (nothing more is sent)."""
    t0 = time.perf_counter()
    chan = Channel(_take_stdout())
    _preload()
    chan.send(Hello(PROTOCOL, ".".join(map(str, sys.version_info[:3])), torch.__version__,
                    triton.__version__, numpy.__version__))
    try:
        job = _read_job(sys.stdin.buffer)
    except ValueError as e:
        chan.send(FatalReport("job", "protocol", _cap(str(e))))
        return EXIT_JOB
    try:
        lock = gpu_lock_from_env(torch.cuda.synchronize if job.platform == "cuda" else None)
        # Setup and loading touch the GPU (the context, what imports allocate): shared.
        lock.shared()
        setup_platform(job.platform)
    except Exception as e:
        # Nothing of the candidate has run: this is the machine's failure, not the candidate's
        # (kgb stores nothing for it and the run ends with the environment's exit status).
        chan.send(FatalReport("setup", "env_error", _cap(
            f"the worker could not start platform '{job.platform}': {_describe(e)}")))
        return EXIT_ENV
    try:
        _scan_candidate(job)  # L1, here: the candidate's text is read, never run
    except Fatal as f:
        chan.send(f.report)
        return EXIT_FATAL
    device = torch.device("cuda:0" if job.platform == "cuda" else "cpu")
    fatal = None
    try:
        remote = Remote(WireChannel.from_fd(PEER_FD, device))
        # A validity job judges the task's reference alone: the candidate is never loaded.
        if job.mode != "validity":
            remote.hello()
            fatal = remote.load(job.candidate, job.platform, [e.name for e in job.entries],
                                _traces(job))
    except (OSError, RunnerLost) as e:
        print(f"kgb judge: the runner is lost while loading: {e}", file=sys.stderr)
        return EXIT_RUNNER_LOST
    if fatal is not None:
        chan.send(_fatal_of(fatal))
        return EXIT_ENV if fatal["verdict"] == "env_error" else EXIT_FATAL
    # The task's own speedup baseline, where it has one and this job times.
    baseline, baseline_note = _load_baseline(job)
    reference, reference_error = None, None
    try:
        reference = load_module(os.path.join(job.task_dir, "reference.py"), "reference")
    except BaseException as e:
        reference_error = _cap(f"reference.py: {_describe(e)}")
    lock.release()
    chan.send(Loaded(remote.import_ms))
    evaluator = Evaluator(job, remote, reference, reference_error, baseline, baseline_note,
                          lock, _replay_remote(job, device))
    try:
        _run_cases(job, evaluator, remote, chan)
    except ReplayLost as e:
        print(f"kgb judge: the replay runner is lost: {e}", file=sys.stderr)
        return EXIT_REPLAY_LOST
    except RunnerLost as e:
        print(f"kgb judge: the runner is lost: {e}", file=sys.stderr)
        return EXIT_RUNNER_LOST
    remote.bye()
    if evaluator.replay_loaded and evaluator.replay is not None:
        evaluator.replay.bye()
    chan.send(Done(len(job.cases), (time.perf_counter() - t0) * 1e3))
    return 0


def _run_cases(job: Job, evaluator: Evaluator, remote: Remote, chan: Channel) -> None:
    lost_after: int | None = None
    failed_at: int | None = None
    failed_in: dict[str, int] = {}  # stop_on_fail "entry": entry -> its first failing case
    for case in job.cases:
        if lost_after is not None:
            chan.send(CaseReport(case.id, "error",
                                 message=f"cuda context lost after case {lost_after}"))
            continue
        if failed_at is not None:
            chan.send(CaseReport(case.id, "skipped", message=f"not run: case {failed_at} failed"))
            continue
        if case.entry in failed_in:
            chan.send(CaseReport(case.id, "skipped", message=f"not run: case "
                                 f"{failed_in[case.entry]} of its entry failed"))
            continue
        try:
            report, lost = evaluator.run(case)
        except RunnerLost:
            raise
        except BaseException as e:  # a harness bug; the run goes on
            report, lost = CaseReport(case.id, "error", message=_cap("worker: " + _describe(e)),
                                      trace=_trace(e)), False
        patched = remote.replaced() if job.mode != "validity" else None
        if not patched and evaluator.replay_loaded and evaluator.replay is not None:
            patched = evaluator.replay.replaced()
        if patched:
            # The runner says the candidate replaced the harness's functions there: nothing
            # it reports after this is evidence (the judge's own checks stand); the rest of
            # the cases are not run.
            report = CaseReport(case.id, "hack", message=f"integrity: running the candidate "
                                f"replaced {patched}")
            failed_at = case.id
        chan.send(report)
        if lost:
            lost_after = case.id
        if job.stop_on_fail == "entry" and report.verdict not in ("pass", "skipped"):
            failed_in.setdefault(case.entry, case.id)
        elif job.stop_on_fail and report.verdict not in ("pass", "skipped"):
            failed_at = case.id


if __name__ == "__main__":
    sys.exit(main())
