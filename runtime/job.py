"""The job line (docs/protocol.md): its parsing and validation, and what it asks of the judge.

parse_job turns the line into frozen dataclasses (Job, its EntrySpec and CaseSpec); every
error is a ValueError that names the offending field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, BinaryIO

from runtime.inputs import ArgSpec, parse_arg
from runtime.kinds import KINDS
from runtime.mutants import MUTANTS
from runtime.records import PROTOCOL
from runtime.source import cap
from runtime.timing import METHODS as TIMING_METHODS

_JOB_CAP_BYTES = 64 << 20  # a job line: 4096 cases of a few descriptors each stay far below


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
class Library:
    """The library of a method run (docs/methods.md): kgb sends it only with a candidate it
    generated itself from the method's adapter table, never with one it was given. L1 allows
    `module` (and everything beneath it) for that candidate alone; its runner finds the
    library at `path` (after its own paths: the environment's packages keep their versions)
    and runs with `env` set."""

    method: str
    module: str
    path: str
    env: tuple[tuple[str, str], ...] = ()

    def wire(self) -> dict[str, Any]:
        """What the judge tells its runners (the load request's `library`)."""
        return {"path": self.path, "env": dict(self.env)}


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
    library: Library | None = None  # a method run's (kgb's generated candidates only)

    def allowed(self) -> frozenset[str]:
        """L1's allowances: the task's, and for a method's candidate its library's module."""
        return self.allow | {self.library.module} if self.library else self.allow

    def entry(self, name: str) -> EntrySpec:
        return next(e for e in self.entries if e.name == name)


_REQUIRED = object()

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
        raise ValueError(f"{path}.{key}: expected {names}, got {cap(repr(v), 80)}")
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


def _parse_library(obj: dict[str, Any]) -> Library | None:
    m = _field(obj, "method", dict, "job", None)
    if m is None:
        return None
    module = _field(m, "module", str, "job.method")
    if not module.isidentifier():
        raise ValueError(f"job.method.module: not a module name: {cap(module, 80)}")
    env = _field(m, "env", dict, "job.method", {})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ValueError("job.method.env: expected an object of strings")
    return Library(_field(m, "name", str, "job.method"), module,
                   _field(m, "path", str, "job.method"), tuple(sorted(env.items())))


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
        raise ValueError(f"job.platform: unknown platform '{cap(platform, 80)}'")
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
            raise ValueError(f"{path}.reference_precision: unknown '{cap(precision, 80)}'")
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
            raise ValueError(f"job.timing.method: unknown method '{cap(method, 80)}'")
    cases = tuple(_parse_case(c, f"job.cases[{i}]", tuple(entries))
                  for i, c in enumerate(_field(obj, "cases", list, "job")))
    mutant = _field(obj, "mutant", str, "job", None)
    if mutant is not None and mutant not in MUTANTS:
        raise ValueError(f"job.mutant: unknown mutant '{cap(mutant, 80)}'")
    stop = _field(obj, "stop_on_fail", (bool, str), "job", False)
    if isinstance(stop, str) and stop != "entry":
        raise ValueError(f"job.stop_on_fail: expected true, false or 'entry', got "
                         f"'{cap(stop, 80)}'")
    mode = _field(obj, "mode", str, "job", "evaluate")
    if mode not in ("evaluate", "validity"):
        raise ValueError(f"job.mode: unknown mode '{cap(mode, 80)}'")
    kind = _field(task, "kind", str, "job.task", "compute")
    if kind not in KINDS:
        raise ValueError(f"job.task.kind: unknown kind '{cap(kind, 80)}'")
    allow = _field(task, "allow", list, "job.task", [])
    if not all(isinstance(a, str) for a in allow):
        raise ValueError("job.task.allow: expected a list of strings")
    return Job(platform, _field(task, "op", str, "job.task", ""),
               _field(task, "dir", str, "job.task"), tuple(entries),
               _field(obj, "candidate", str, "job"), warmup, rounds, cases, mutant, mode,
               stop, frozenset(allow), kind,
               _field(task, "ghost", bool, "job.task", False), method, _parse_library(obj))


def read_job(stream: BinaryIO) -> Job:
    line = stream.readline(_JOB_CAP_BYTES + 1)
    if not line.strip():
        raise ValueError("job: no job line on stdin")
    if len(line) > _JOB_CAP_BYTES:
        raise ValueError(f"job: line longer than {_JOB_CAP_BYTES} bytes")
    return parse_job(line)


def runs_l3(job: Job) -> bool:
    """Whether this job runs L3 (Runner._device_trace): on cuda, checking, anti-hack on."""
    return (job.platform == "cuda" and not job.rounds and job.ghost and job.mode == "evaluate"
            and not job.mutant)
