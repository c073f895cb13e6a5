"""Worker protocol loop: read one job, evaluate the candidate case by case, report JSON lines.

`python -m runtime.worker` speaks docs/protocol.md: hello, one job line in, then loaded or fatal,
one case line per case, done. The protocol channel is a private duplicate of the original
stdout; fd 1 and sys.stdout are pointed at stderr, so nothing the candidate, the reference or a
library prints can corrupt it. Exceptions become protocol records here and only here.

Before the candidate is imported, runtime.candidate scans its syntax tree (anti-hack layer L1,
runtime.guards); a candidate with findings gets the fatal verdict `hack` and is never imported.
The candidate is loaded and called in its runner (runtime.runner); the cases are evaluated by
runtime.evaluator.
"""

from __future__ import annotations

import os
import sys
import time

import numpy
import torch
import triton

from runtime.candidate import scan_candidate
from runtime.evaluator import Evaluator
from runtime.gpulock import from_env as gpu_lock_from_env
from runtime.job import Job, read_job, runs_l3
from runtime.loading import load_baseline, load_module
from runtime.records import (PROTOCOL, CaseReport, Channel, Done, Fatal, FatalReport, Hello,
                             Loaded, describe, error_trace, fatal_of)
from runtime.remote import Remote, ReplayLost, RunnerLost
from runtime.replays import replay_remote
from runtime.source import cap
from runtime.startup import preload, setup_platform
from runtime.wire import PEER_FD
from runtime.wire import Channel as WireChannel

__all__ = ["main"]

EXIT_JOB = 3  # STYLE §3: bad input data (the job line)
EXIT_FATAL = 1  # ran, and the answer is no (candidate failed to load)
EXIT_ENV = 4  # STYLE §3: the environment (the platform would not start)
EXIT_RUNNER_LOST = 6  # src/sched.h SCHED_EXIT_RUNNER_LOST: kgb tells how the runner ended
EXIT_REPLAY_LOST = 7  # src/sched.h SCHED_EXIT_REPLAY_LOST: the same of the replay runner


def _take_stdout() -> int:
    """Move the protocol channel off fd 1: return a private duplicate, send fd 1 to stderr."""
    sys.stdout.flush()
    fd = os.dup(1)  # not inherited by children the candidate might start
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return fd


def main() -> int:
    """Judge one job; the exit status is 0 after done, 3 for a bad job, 1 after another fatal,
    EXIT_RUNNER_LOST when the runner died or broke the channel (nothing more is sent)."""
    t0 = time.perf_counter()
    chan = Channel(_take_stdout())
    preload()
    chan.send(Hello(PROTOCOL, ".".join(map(str, sys.version_info[:3])), torch.__version__,
                    triton.__version__, numpy.__version__))
    try:
        job = read_job(sys.stdin.buffer)
    except ValueError as e:
        chan.send(FatalReport("job", "protocol", cap(str(e))))
        return EXIT_JOB
    try:
        lock = gpu_lock_from_env(torch.cuda.synchronize if job.platform == "cuda" else None)
        # Setup and loading touch the GPU (the context, what imports allocate): shared.
        lock.shared()
        setup_platform(job.platform)
    except Exception as e:
        # Nothing of the candidate has run: this is the machine's failure, not the candidate's
        # (kgb stores nothing for it and the run ends with the environment's exit status).
        chan.send(FatalReport("setup", "env_error", cap(
            f"the worker could not start platform '{job.platform}': {describe(e)}")))
        return EXIT_ENV
    try:
        scan_candidate(job)  # L1, here: the candidate's text is read, never run
    except Fatal as f:
        chan.send(f.report)
        return EXIT_FATAL
    device = torch.device("cuda:0" if job.platform == "cuda" else "cpu")
    fatal = None
    try:
        remote = Remote(WireChannel.from_fd(PEER_FD, device))
        # A validity job judges the task's reference alone: the candidate is never loaded.
        # The load goes first and the runner's hello is read after it: a runner that waits
        # for its first request before it imports anything (runtime.replay_runner, which kgb
        # starts as the runner on a CPU platform) says hello only then; one that starts at
        # once has its hello queued already.
        if job.mode != "validity":
            fatal = remote.load(job.candidate, job.platform, [e.name for e in job.entries],
                                runs_l3(job), job.library.wire() if job.library else None)
    except (OSError, RunnerLost) as e:
        print(f"kgb judge: the runner is lost while loading: {e}", file=sys.stderr)
        return EXIT_RUNNER_LOST
    if fatal is not None:
        chan.send(fatal_of(fatal))
        return EXIT_ENV if fatal["verdict"] == "env_error" else EXIT_FATAL
    # The task's own speedup baseline, where it has one and this job times.
    baseline, baseline_note = load_baseline(job)
    reference, reference_error = None, None
    try:
        reference = load_module(os.path.join(job.task_dir, "reference.py"), "reference")
    except BaseException as e:
        reference_error = cap(f"reference.py: {describe(e)}")
    lock.release()
    chan.send(Loaded(remote.import_ms))
    evaluator = Evaluator(job, remote, reference, reference_error, baseline, baseline_note,
                          lock, replay_remote(job, device))
    try:
        if job.platform == "cuda" and job.mode != "validity":
            evaluator.start_replay()
        _run_cases(job, evaluator, remote, chan)
    except ReplayLost as e:
        print(f"kgb judge: the replay runner is lost: {e}", file=sys.stderr)
        return EXIT_REPLAY_LOST
    except RunnerLost as e:
        print(f"kgb judge: the runner is lost: {e}", file=sys.stderr)
        return EXIT_RUNNER_LOST
    remote.bye()
    if evaluator.replay_sent and evaluator.replay is not None:
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
            report, lost = CaseReport(case.id, "error", message=cap("worker: " + describe(e)),
                                      trace=error_trace(e)), False
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
