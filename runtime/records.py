"""The judge's protocol records (docs/protocol.md) and the text that goes into them.

The records kgb reads (hello, loaded, case, fatal, done), the channel that writes them one JSON
line each, and how an exception becomes a record's message and trace: capped in bytes, with
the harness's own frames left out. A runner's fatal record is passed on through fatal_of.
"""

from __future__ import annotations

import json
import os
import traceback
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from runtime.remote import RemoteError
from runtime.source import cap
from runtime.verdicts import Verdict, named

PROTOCOL = 1  # the version of docs/protocol.md spoken here

TRACE_CAP_BYTES = 2048
_TRACE_FRAMES = 6  # the frames nearest the raise say where a kernel or launch failed
_JSON_INF = 1e308  # JSON has no Infinity; stands for an unbounded tol_use or error
# Harness frames are left out of traces: they are the same in every one.
_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))


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
    # Its parts (runtime.timing.remote_wall_gap): each request's wall and each of the judge's
    # preparations, the round trip, each event time, ms.
    gap_parts: dict[str, Any] | None = None
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


def describe(e: BaseException) -> str:
    if isinstance(e, RemoteError):
        return cap(e.message)
    return cap(f"{type(e).__name__}: {e}")


def error_trace(e: BaseException, frames: int | None = _TRACE_FRAMES) -> str:
    """The last `frames` frames (all with None) outside the harness, then the exception."""
    if isinstance(e, RemoteError):
        return cap(e.trace or "", TRACE_CAP_BYTES, tail=True)
    tb: list[traceback.FrameSummary] = traceback.extract_tb(e.__traceback__)
    own = [f for f in tb if not (f.filename.startswith(_RUNTIME_DIR + os.sep)
                                 or f.filename.startswith("<frozen importlib"))]
    tb = own or tb[-1:]
    text = "".join(traceback.format_list(tb[-frames:] if frames else tb))
    return cap(text + "".join(traceback.format_exception_only(type(e), e)),
                TRACE_CAP_BYTES, tail=True)


def fatal_of(h: dict[str, Any]) -> FatalReport:
    """The runner's fatal record, as the judge passes it on (only failing verdicts reach
    here: Remote.load)."""
    verdict = named(h["verdict"]) or "protocol"
    return FatalReport("entry" if verdict == "missing_entry" else "load", verdict,
                       cap(str(h.get("message", ""))),
                       cap(str(h["trace"]), TRACE_CAP_BYTES, tail=True)
                       if h.get("trace") else None)
