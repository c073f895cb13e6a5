"""Where a case's time goes: wall time by phase, and time inside Triton's compile().

Both end up in the case record (phase_ms, compile_ms) for bench/throughput.py. The compile
clock runs in the runner, which reports it with each call.
"""

from __future__ import annotations

import time
from typing import Any


class Phases:
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


class CompileClock:
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


compile_clock = CompileClock()
