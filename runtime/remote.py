"""The judge's side of the judge-runner channel (runtime.wire): the candidate as a remote.

Remote.call() sends an entry's arguments to the runner, which calls the candidate on them,
and returns the output and the arguments as the runner sent them back, rebuilt in the judge's
memory (runtime.wire checks every shape, stride, dtype and size first). Whatever the runner
sends is data the judge judges itself; a runner that dies, closes the socket or breaks the
channel's rules raises RunnerLost, and the judge ends the job (kgb then says how the runner
ended).
"""

from __future__ import annotations

import time
from typing import Any

import torch

from runtime.inputs import BuiltArg, storage_span, strip_bits
from runtime.wire import Body, Channel, Storages, WireError, decode_args, encode_args
from runtime import verdicts

__all__ = ["Remote", "RemoteError", "RunnerLost", "ReplayLost", "body_cap"]

# What a reply may hold beyond what was sent: outputs are new tensors, usually no larger than
# the inputs, and rarely many times larger (an outer product, an expansion); beyond this the
# runner is trying to exhaust the judge's memory.
_REPLY_FACTOR = 16
_REPLY_MIN = 256 << 20

class RemoteError(Exception):
    """The runner's call of the candidate raised: its message and trace (the candidate's own
    text, shown only in a failing verdict), and what the runner says of it: out of device
    memory (retried), or its CUDA context lost (the rest of the job is `error`)."""

    def __init__(self, message: str, trace: str | None = None, oom: bool = False,
                 lost: bool = False) -> None:
        super().__init__(message)
        self.message, self.trace, self.oom, self.lost = message, trace, oom, lost


class RunnerLost(Exception):
    """The runner died, closed its end, or broke the channel's rules: the judge stops
    (SCHED_EXIT_RUNNER_LOST), and kgb tells how the runner ended."""


class ReplayLost(RunnerLost):
    """The same of the replay runner (runtime.replay_runner; SCHED_EXIT_REPLAY_LOST)."""



def _failure(h: dict[str, Any]) -> RemoteError:
    """The runner's report of a call that raised, capped."""
    return RemoteError(str(h.get("message", "the runner's call failed"))[:2048],
                       str(h.get("trace", ""))[:4096], h.get("oom") is True,
                       h.get("lost") is True)


def _bytes(args: tuple[BuiltArg, ...] | list[BuiltArg]) -> int:
    n = 0
    for a in args:
        vs = a.value if isinstance(a.value, (list, tuple)) else [a.value]
        for v in vs:
            if isinstance(v, torch.Tensor):
                n += storage_span(strip_bits(v)[0]).numel() * v.element_size()
    return n


def body_cap(args: tuple[BuiltArg, ...] | list[BuiltArg]) -> int:
    """The largest reply the judge reads for a call on `args`."""
    return max(_REPLY_MIN, _REPLY_FACTOR * _bytes(args))


class Remote:
    """The runner of this job, as the judge sees it."""

    def __init__(self, chan: Channel, lost: type[RunnerLost] = RunnerLost) -> None:
        self.chan = chan
        self.import_ms = 0.0
        self.lost = lost  # what a broken channel raises: which runner it was

    def _recv(self, cap: int = _REPLY_MIN) -> tuple[dict[str, Any], Body | None]:
        try:
            return self.chan.recv(cap)
        except (EOFError, OSError, WireError) as e:
            raise self.lost(f"{type(e).__name__}: {e}") from None

    def _send(self, header: dict[str, Any], doc: Any = None, st: Storages | None = None) -> None:
        try:
            self.chan.send(header, doc, st)
        except OSError as e:
            raise self.lost(f"{type(e).__name__}: {e}") from None

    def hello(self) -> None:
        h, _ = self._recv()
        if h.get("op") != "hello":
            raise self.lost("the runner did not start with hello")

    def load(self, candidate: str, platform: str, entries: list[str],
             traces: bool, library: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """None once the candidate loaded; else the runner's fatal record (a failing verdict
        of its own: syntax_error, import_error, missing_entry, hack, env_error). The runner's
        hello is read after the load is sent: a runner that starts only at its first request
        (runtime.replay_runner) sends it then, one that started at once has sent it already,
        so both kinds are read the same way. `library`: a method run's (runtime.job.Library)."""
        self.load_send(candidate, platform, entries, traces, library)
        return self.load_reply()

    def load_send(self, candidate: str, platform: str, entries: list[str],
                  traces: bool, library: dict[str, Any] | None = None) -> None:
        """The first half of load(): the request alone. The judge reads the answer with
        load_reply() when it first needs the runner, which meanwhile imports and loads."""
        req: dict[str, Any] = {"op": "load", "candidate": candidate, "platform": platform,
                               "entries": entries, "traces": traces}
        if library is not None:
            req["library"] = library
        self._send(req)

    def load_reply(self) -> dict[str, Any] | None:
        """The second half of load()."""
        self.hello()
        h, _ = self._recv()
        if h.get("op") == "loaded":
            ms = h.get("import_ms")
            self.import_ms = float(ms) if isinstance(ms, (int, float)) else 0.0
            return None
        # Any verdict a fatal line may carry but the judge's own (a job it cannot read).
        if h.get("op") == "fatal" and h.get("verdict") in verdicts.FATAL - {"protocol"}:
            return h
        raise self.lost("the runner neither loaded the candidate nor said why")

    def _result(self, like: tuple[BuiltArg, ...]) -> tuple[Any, tuple[BuiltArg, ...],
                                                            dict[str, Any]]:
        h, body = self._recv(body_cap(like))
        if h.get("ok") is not True:
            raise _failure(h)
        if body is None or not isinstance(body.doc, dict):
            raise self.lost("a result without a body")
        try:
            dec = self.chan.decoder(body)
            args = decode_args(body.doc.get("args"), dec, like)
            out = dec.value(body.doc.get("out"))
        except WireError as e:
            raise self.lost(f"malformed result: {e}") from None
        return out, args, h

    def _send_args(self, header: dict[str, Any], args: tuple[BuiltArg, ...],
                   recipe: dict[str, Any] | None) -> None:
        """A request with its arguments: their bytes, or with a recipe (the case's JSON args,
        seed and where it draws) the runner builds them itself (runtime.inputs.build_args)."""
        if recipe is not None:
            self._send(dict(header, build=recipe))
            return
        st = Storages()
        self._send(header, {"args": encode_args(args, st)}, st)

    def call(self, entry: str, args: tuple[BuiltArg, ...], mode: str = "plain",
             recipe: dict[str, Any] | None = None
             ) -> tuple[Any, tuple[BuiltArg, ...], dict[str, Any]]:
        """The candidate's `entry` on copies of `args` (the judge's are not touched): its
        output, the arguments after the call, and the header (launches, trace, compile_ms)."""
        self._send_args({"op": "call", "entry": entry, "mode": mode}, args, recipe)
        return self._result(args)

    def warm(self, entry: str, args: tuple[BuiltArg, ...],
             recipe: dict[str, Any] | None = None) -> dict[str, Any]:
        """A call whose answer the judge does not need (it loads the kernels ahead of the
        timed rounds): nothing comes back but whether it raised (RemoteError)."""
        self._send_args({"op": "call", "entry": entry, "mode": "plain", "reply": False}, args,
                        recipe)
        h, _ = self._recv()
        if h.get("ok") is not True:
            raise _failure(h)
        return h

    def trace(self, entry: str, args: tuple[BuiltArg, ...], mutates: tuple[str, ...],
              recipe: dict[str, Any] | None = None) -> dict[str, Any]:
        """L3's traced call: the header alone (the kernels, the events, compile_ms, and
        whether the call left its output as its inputs: did_nothing); no output comes back."""
        self._send_args({"op": "call", "entry": entry, "mode": "trace", "reply": False,
                         "mutates": list(mutates)}, args, recipe)
        h, _ = self._recv()
        if h.get("ok") is not True:
            raise _failure(h)
        return h

    def replaced(self) -> str | None:
        """What the runner says the candidate replaced of torch, Triton or the timing code."""
        self._send({"op": "integrity"})
        h, _ = self._recv()
        r = h.get("replaced")
        return str(r)[:200] if r else None

    def ping_s(self) -> float:
        """One round trip to the runner, in seconds (the judge's clock)."""
        t0 = time.perf_counter()
        self._send({"op": "ping"})
        self._recv()
        return time.perf_counter() - t0

    def timing(self, header: dict[str, Any], args: tuple[BuiltArg, ...] | None = None,
               recipe: dict[str, Any] | None = None) -> dict[str, Any]:
        """A timing request (runner.time_*); raises RemoteError when the runner's call raised."""
        if args is not None:
            self._send_args(header, args, recipe)
        else:
            self._send(header)
        h, _ = self._recv()
        if h.get("ok") is not True and "timing_error" not in h:
            raise _failure(h)
        return h

    def result(self, header: dict[str, Any], like: tuple[BuiltArg, ...]
               ) -> tuple[Any, tuple[BuiltArg, ...]]:
        self._send(header)
        out, args, _ = self._result(like)
        return out, args

    def bye(self) -> None:
        try:
            self.chan.send({"op": "bye"})
        except OSError:
            pass
