"""The runner's timing requests (CUDA): the timed rounds of one case, the event/wall
cross-check's calls, and the outputs the judge checks afterwards (runtime.timed holds the
judge's side). A base of runtime.runner's Runner, which owns the channel, the loaded candidate
and how a failed call is reported."""

from __future__ import annotations

from typing import Any

import torch

from runtime.inputs import BuiltArg, call, clone_args
from runtime.timing import (TimingError, _elapsed, _round, _sleep_rate, _Timed, flush_buffer,
                            perturb, perturb_factors)
from runtime.wire import Body, Channel

__all__ = ["TimingRequests", "cache_blocks", "output_bytes"]


def output_bytes(out: Any) -> list[int]:
    """The storage sizes of the tensors `out` holds (a tensor, or a tuple or list of them)."""
    leaves = out if isinstance(out, (tuple, list)) else [out]
    return [t.untyped_storage().nbytes() for t in leaves
            if isinstance(t, torch.Tensor) and t.untyped_storage().nbytes()]


def cache_blocks(sizes: list[int], n: int) -> None:
    """n blocks of each size taken from torch's CUDA caching allocator and given back to its
    cache (not to the driver), so that n later allocations of those sizes are served from it."""
    ptrs = [torch.cuda.caching_allocator_alloc(b) for _ in range(n) for b in sizes]
    for p in ptrs:
        torch.cuda.caching_allocator_delete(p)


class TimingRequests:
    """time_prepare, time_calls, time_last, gap_ready, gap, gap_output (Runner sets the state)."""

    chan: Channel
    device: torch.device
    module: Any
    timed: Any  # runtime.timing._Timed of the case being timed
    flush: torch.Tensor | None
    last_gap: list[Any]
    gap_args: list[tuple[BuiltArg, ...]]
    gap_factors: torch.Tensor | None

    def _error(self, e: BaseException) -> dict[str, Any]:
        raise NotImplementedError

    def _reply(self, extra: dict[str, Any], out: Any, args: tuple[BuiltArg, ...]) -> None:
        raise NotImplementedError

    def _built_args(self, req: dict[str, Any], body: Body | None,
                    op: str = "result") -> tuple[BuiltArg, ...] | None:
        raise NotImplementedError

    # --- timing (cuda) -------------------------------------------------------------------

    def time_prepare(self, req: dict[str, Any], body: Body | None) -> None:
        inputs = self._built_args(req, body, op="timed")
        if inputs is None:
            return
        fn = getattr(self.module, str(req.get("entry")))
        try:
            if self.flush is None:
                self.flush = flush_buffer(self.device)
            self.timed = _Timed(fn, inputs, str(req.get("method", "events")))
        except TimingError as e:
            self.chan.send({"op": "timed", "ok": False, "timing_error": str(e)[:500]})
            return
        except BaseException as e:
            self.chan.send(dict(self._error(e), op="timed"))
            return
        self.chan.send({"op": "timed", "ok": True})

    def time_calls(self, req: dict[str, Any]) -> None:
        """req["n"] calls of the prepared function, each as a round of runtime.timing: fresh
        copies, L2 flushed, the stream held req["hold_ms"] (0: none), events around it."""
        n = max(1, min(int(req.get("n", 1)), 1000))
        hold_ms = float(req.get("hold_ms", 0.0))
        rate = _sleep_rate() if hold_ms > 0 else None
        cycles = {"cand": int(hold_ms * rate)} if rate else None
        events: dict[str, list[Any]] = {"cand": []}
        launch: dict[str, list[float]] = {"cand": []}
        try:
            assert self.flush is not None  # made by time_prepare, which the judge sends first
            for _ in range(n):
                _round([("cand", self.timed)], self.flush, events, cycles, launch)
            torch.cuda.synchronize()
        except BaseException as e:
            self.chan.send(dict(self._error(e), op="timed"))
            return
        self.chan.send({"op": "timed", "ok": True, "ms": _elapsed(events["cand"]),
                        "launch_ms": launch["cand"]})

    def time_last(self) -> None:
        self._reply({}, self.timed.out, self.timed.args)

    def gap_ready(self, req: dict[str, Any]) -> None:
        """Fresh copies of the inputs for the next req["n"] cross-check calls, and the buffer
        of perturb's factors, made before the judge starts its clock: their allocations (a
        fresh device allocation each while the earlier calls' copies are kept) are not the
        call's time, and the judge's own measure of the clocked preparation makes none. And
        room in the allocator's cache for the calls' outputs (cache_blocks), which are kept
        until the judge has picked one: each would otherwise be a fresh device allocation
        inside the call, where the rounds' calls, whose outputs are freed, reuse a block."""
        n = max(0, min(int(req.get("n", 0)), 16))
        try:
            self.gap_args = [clone_args(self.timed.inputs) for _ in range(n)]
            self.gap_factors = perturb_factors(self.timed.inputs)
            cache_blocks(output_bytes(self.timed.out), n)
            torch.cuda.synchronize()
        except BaseException as e:
            self.chan.send(dict(self._error(e), op="timed"))
            return
        self.chan.send({"op": "timed", "ok": True})

    def gap(self, req: dict[str, Any]) -> None:
        """The event/wall cross-check's calls (runtime.timing.wall_gap), each on a copy of the
        inputs (gap_ready's, else fresh) with the first floating-point tensor shifted by noise
        drawn from the judge's seeds: the judge clocks the whole request itself and checks an
        output it chooses afterwards, so the calls cannot be skipped or answered ahead."""
        seeds = [int(s) for s in (req.get("seeds") or [])][:16]
        evs, outs = [], []
        try:
            for s in seeds:
                args = self.gap_args.pop(0) if self.gap_args else clone_args(self.timed.inputs)
                perturb(args, s, self.gap_factors)
                assert self.flush is not None  # time_prepare made it, as it made self.timed
                self.flush.zero_()
                torch.cuda.synchronize()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                out = call(self.timed.fn, args)
                end.record()
                torch.cuda.synchronize()
                evs.append(start.elapsed_time(end))
                outs.append((out, args))
        except BaseException as e:
            self.chan.send(dict(self._error(e), op="timed"))
            return
        self.last_gap = (outs if req.get("first", True) else self.last_gap + outs)[:16]
        self.chan.send({"op": "timed", "ok": True, "ms": evs})

    def gap_output(self, req: dict[str, Any]) -> None:
        i = int(req.get("i", 0))
        out, args = self.last_gap[i]
        self.last_gap = []
        self._reply({}, out, args)
