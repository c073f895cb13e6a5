"""The runner: the one process of a job that imports and runs the candidate (docs/protocol.md,
"Judge and runner"; docs/security.md, "The trust boundary").

kgb starts it beside the job's judge (runtime.worker), in a sandbox of its own that hides the
task catalog. It reads nothing from kgb: its only channel is the socket to its judge (fd
runtime.wire.PEER_FD). It loads the candidate when the judge says so (the judge has already
scanned it, L1), then answers requests: call an entry on the arguments sent (plainly, with
uninitialised memory poisoned, with Triton launches skipped, or under the profiler) and send
back the output and the arguments as they are after the call; time calls of an entry. It
decides nothing: every verdict is the judge's, from the values it receives. What it says about
itself (an error, a lost context, a replaced function, a trace) can only make the candidate
fail; a lie there changes no verdict the judge does not compute itself.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from typing import Any

import torch

from runtime.candidate import syntax_error
from runtime.clocks import compile_clock
from runtime.compare import did_nothing
from runtime.device import context_lost, give_back_memory, is_oom
from runtime.ghost import poisoned_empty
from runtime.ghost import replay as ghost_replay
from runtime.inputs import BuiltArg, build_args, call, clone_args, parse_arg
from runtime.integrity import Snapshot
from runtime.loading import load_module
from runtime.records import describe, error_trace
from runtime.source import cap
from runtime.startup import preload, setup_platform
from runtime.runner_timing import TimingRequests
from runtime.trace import NotRecorded, traced
from runtime.wire import (PEER_FD, Body, Channel, Storages, WireError, decode_args, encode_args,
                          encode_value)

__all__ = ["main"]


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def use_library(library: Any) -> None:
    """A method run's library (runtime.job.Library.wire, from the judge), before the integrity
    snapshot: its directory after this Python's own paths, so that a package the environment
    has (numpy, torch) keeps the environment's version and only what it lacks comes from the
    library's directory; the environment the method's table sets (docs/methods.md); and
    torch._dynamo imported, which libraries import (Liger-Kernel through
    torch.distributed.tensor) and whose import rebinds torch.manual_seed: the integrity check
    blamed every method candidate for it."""
    if not isinstance(library, dict):
        return
    for k, v in (library.get("env") or {}).items():
        os.environ[str(k)] = str(v)
    path = library.get("path")
    if isinstance(path, str) and path not in sys.path:
        sys.path.append(path)
    importlib.import_module("torch._dynamo")


class Runner(TimingRequests):
    """Serves one job's requests: loading the candidate and calling it (here), timing it
    (runtime.runner_timing). `module` is the candidate once loaded."""

    def __init__(self, chan: Channel) -> None:
        self.chan = chan
        self.device = torch.device("cpu")
        self.module: Any = None
        self.trusted: Snapshot | None = None
        self.timed = None
        self.flush = None
        self.last_gap = []
        self.gap_args = []
        self.gap_factors = None

    # --- loading -------------------------------------------------------------------------

    def load(self, req: dict[str, Any]) -> bool:
        platform = req.get("platform")
        self.device = torch.device("cuda:0" if platform == "cuda" else "cpu")
        self.chan.device = self.device
        try:
            setup_platform(str(platform), bool(req.get("traces")))
        except Exception as e:
            self.chan.send({"op": "fatal", "verdict": "env_error", "message":
                            cap(f"the runner could not start platform '{platform}': "
                                   f"{describe(e)}")})
            return False
        compile_clock.install()
        use_library(req.get("library"))
        self.trusted = Snapshot()
        path = str(req.get("candidate"))
        t0 = time.perf_counter()
        try:
            self.module = load_module(path, "candidate")
        except SyntaxError as e:
            f = syntax_error(e, path)
            self.chan.send({"op": "fatal", "verdict": "syntax_error",
                            "message": f.report.message, "trace": f.report.trace})
            return False
        except BaseException as e:
            self.chan.send({"op": "fatal", "verdict": "import_error", "message": describe(e),
                            "trace": error_trace(e, frames=None)})
            return False
        import_ms = (time.perf_counter() - t0) * 1e3
        for name in req.get("entries") or []:
            try:
                fn = getattr(self.module, str(name), None)
            except BaseException:
                fn = None
            if not callable(fn):
                what = "is not callable" if fn is not None else "is not defined"
                self.chan.send({"op": "fatal", "verdict": "missing_entry",
                                "message": f"entry '{name}' {what} in the candidate"})
                return False
        patched = self.trusted.replaced()
        if patched:
            self.chan.send({"op": "fatal", "verdict": "hack", "message":
                            f"integrity: importing the candidate replaced {patched}"})
            return False
        self.chan.send({"op": "loaded", "import_ms": import_ms})
        return True

    # --- calls ---------------------------------------------------------------------------

    def _error(self, e: BaseException) -> dict[str, Any]:
        return {"op": "result", "ok": False, "message": cap(describe(e)),
                "trace": error_trace(e), "oom": is_oom(e) or isinstance(e, NotRecorded),
                "lost": context_lost(e, self.device)}

    def _reply(self, extra: dict[str, Any], out: Any, args: tuple[BuiltArg, ...]) -> None:
        st = Storages()
        doc = {"out": encode_value(out, st), "args": encode_args(args, st)}
        self.chan.send(dict({"op": "result", "ok": True}, **extra), doc, st)

    def _args(self, req: dict[str, Any], body: Body | None) -> tuple[BuiltArg, ...]:
        """The request's arguments: sent, or built here from the case's recipe."""
        build = req.get("build")
        if isinstance(build, dict):
            specs = [parse_arg(a) for a in build.get("args") or []]
            return build_args(specs, int(build.get("seed", 0)), self.device,
                              draw_on_device=bool(build.get("on_device")))
        if body is None or not isinstance(body.doc, dict):
            raise WireError("a call without arguments")
        return decode_args(body.doc.get("args"), self.chan.decoder(body))

    def call(self, req: dict[str, Any], body: Body | None) -> None:
        compiled = compile_clock.ms
        args = self._built_args(req, body)
        if args is None:
            return
        fn = getattr(self.module, str(req.get("entry")))
        mode = str(req.get("mode", "plain"))
        extra: dict[str, Any] = {}
        try:
            if mode == "plain":
                out = call(fn, args)
                _sync(self.device)
            elif mode == "poison":
                with poisoned_empty(self.module, 1):
                    out = call(fn, args)
                    _sync(self.device)
            elif mode.startswith("ghost"):
                with ghost_replay(self.module, int(mode[5:])) as n:
                    out = call(fn, args)
                    _sync(self.device)
                extra["launches"] = n[0]
            elif mode == "trace":
                # Sent inputs may be views of the body's mapping, which the call can write:
                # kept aside for did_nothing; a recipe's are built again afterwards instead.
                answer = req.get("reply") is False
                kept = (clone_args(args) if answer and not isinstance(req.get("build"), dict)
                        else None)
                out, kernels, names, event_us = traced(lambda: call(fn, args))
                extra["kernels"] = [[k.name[:200], k.us] for k in kernels[:4096]]
                extra["triton_names"] = sorted(names)[:4096]
                extra["event_us"] = event_us
                if answer:
                    extra["did_nothing"] = self._did_nothing(req, body, out, args, kept)
            else:
                raise WireError(f"unknown call mode {mode!r}")
        except WireError:
            raise
        except BaseException as e:
            self.chan.send(dict(self._error(e), compile_ms=compile_clock.ms - compiled))
            return
        extra["compile_ms"] = compile_clock.ms - compiled
        if req.get("reply") is False:  # a call to load kernels: only whether it raised
            self.chan.send(dict({"op": "result", "ok": True, "none": True}, **extra))
        else:
            self._reply(extra, out, args)
        del out, args
        self._give_back_memory()

    def _did_nothing(self, req: dict[str, Any], body: Body | None, out: Any,
                     args: tuple[BuiltArg, ...], kept: tuple[BuiltArg, ...] | None) -> bool:
        """runtime.compare.did_nothing of a traced call, against the inputs kept before it or
        built again from the request's recipe (the same recipe draws the same values).
        Answered here so that L3's call sends no output back: its output serves only this
        test, and the trace it goes with is this process's word as well
        (docs/anti-hack.md)."""
        mutates = tuple(str(m) for m in req.get("mutates") or [])
        return did_nothing(out, args, kept or self._args(req, body), mutates)

    def _built_args(self, req: dict[str, Any], body: Body | None,
                    op: str = "result") -> tuple[BuiltArg, ...] | None:
        """The request's arguments, or None after replying with the error that building them
        raised. Nothing of the candidate runs here: running out of device memory is the
        machine's (other jobs hold it), so the reply says so and the judge tries again
        (runtime.evaluator Evaluator.run), where an uncaught error ended this process
        (on an 80 GiB H100, 2026-12-06: five of 36 tasks crashed so, git log)."""
        try:
            return self._args(req, body)
        except WireError:
            raise
        except BaseException as e:
            self.chan.send(dict(self._error(e), op=op, compile_ms=0.0))
            return None

    def _give_back_memory(self) -> None:
        """Return cached device memory above the judge's threshold after a checking call, as
        the judge does (runtime.evaluator Evaluator._give_back_memory): a runner that kept the
        largest case's blocks held them from every other job on the GPU. Timing calls keep
        theirs (time_prepare)."""
        if self.device.type == "cuda":
            give_back_memory(self.device)

    def integrity(self) -> None:
        patched = self.trusted.replaced() if self.trusted else None
        self.chan.send({"op": "integrity", "replaced": patched})

    # --- the loop ------------------------------------------------------------------------

    def serve(self) -> int:
        self.chan.send({"op": "hello", "pid": os.getpid()})
        req, _ = self.chan.recv()
        if req.get("op") != "load" or not self.load(req):
            return 1
        while True:
            try:
                req, body = self.chan.recv()
            except EOFError:
                return 0
            op = req.get("op")
            if op == "call":
                self.call(req, body)
            elif op == "integrity":
                self.integrity()
            elif op == "ping":
                self.chan.send({"op": "pong"})
            elif op == "time_prepare":
                self.time_prepare(req, body)
            elif op == "time_calls":
                self.time_calls(req)
            elif op == "time_last":
                self.time_last()
            elif op == "gap_ready":
                self.gap_ready(req)
            elif op == "gap":
                self.gap(req)
            elif op == "gap_output":
                self.gap_output(req)
            elif op == "bye":
                return 0
            else:
                raise WireError(f"unknown request {str(op)[:40]!r}")


def main() -> int:
    # What the candidate prints goes to stderr: kgb keeps its tail, and reads nothing else.
    os.dup2(2, 1)
    preload()
    chan = Channel.from_fd(PEER_FD, torch.device("cpu"))
    return Runner(chan).serve()


if __name__ == "__main__":
    sys.exit(main())
