"""GPU timing: baseline and candidate interleaved in rounds, CUDA events, L2 flushed per call.

Every call gets fresh layout-preserving copies of the inputs, made before the L2 flush and
outside the timed region; the events bracket the call alone, on the current stream. Rounds
alternate which of the two runs first so that clock and thermal drift cancel. Times are in ms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from runtime.inputs import BuiltArg, call, clone_args

__all__ = ["Timing", "flush_buffer", "time_case", "speedup_ci"]

# Bootstrap of the speedup: resamples and coverage. Fixed seed: the same times give the same CI.
_BOOT_SAMPLES = 2000
_BOOT_LEVEL = 0.95

# DESIGN §5: the flush buffer is at least twice the L2, so no input line survives the flush.
_L2_FACTOR = 2


@dataclass(frozen=True)
class Timing:
    """Medians and interquartile ranges of the per-call event times, in ms."""

    base_ms: float
    cand_ms: float
    base_iqr_ms: float
    cand_iqr_ms: float
    speedup: float | None  # base_ms / cand_ms; None when cand_ms is 0
    speedup_ci: tuple[float, float] | None = None  # 95% bootstrap interval of the speedup


@dataclass(frozen=True)
class TimedCall:
    """The last candidate call of the timed rounds: its output and its (possibly mutated) args."""

    output: Any
    args: tuple[BuiltArg, ...]


def flush_buffer(device: torch.device | str) -> torch.Tensor:
    """A byte buffer of 2x the device's L2; zeroing it evicts the L2. Allocate once per job."""
    index = torch.device(device).index or 0
    l2_bytes = torch.cuda.get_device_properties(index).L2_cache_size
    return torch.empty(_L2_FACTOR * max(l2_bytes, 1 << 20), dtype=torch.uint8, device=device)


def speedup_ci(base_ms: list[float], cand_ms: list[float]) -> tuple[float, float] | None:
    """95% percentile-bootstrap interval of median(base) / median(cand). Rounds are resampled
    as pairs (one baseline and one candidate call of the same round), which keeps the drift
    the interleaving cancels out of the interval."""
    b, c = np.asarray(base_ms, dtype=np.float64), np.asarray(cand_ms, dtype=np.float64)
    if len(b) != len(c) or len(b) < 2 or not (c > 0).all():
        return None
    idx = np.random.default_rng(0).integers(0, len(b), size=(_BOOT_SAMPLES, len(b)))
    ratios = np.median(b[idx], axis=1) / np.median(c[idx], axis=1)
    tail = (1 - _BOOT_LEVEL) / 2 * 100
    lo, hi = np.percentile(ratios, [tail, 100 - tail])
    return float(lo), float(hi)


def _stats(ms: list[float]) -> tuple[float, float]:
    q1, med, q3 = np.percentile(np.asarray(ms, dtype=np.float64), [25, 50, 75])
    return float(med), float(q3 - q1)


def time_case(cand: Callable[..., Any], base: Callable[..., Any], inputs: Sequence[BuiltArg],
              warmup: int, rounds: int, flush: torch.Tensor) -> tuple[Timing, TimedCall]:
    """Warm up both, then time `rounds` calls of each, interleaved; inputs are never touched."""
    for _ in range(warmup):
        call(base, clone_args(inputs))
        call(cand, clone_args(inputs))
    torch.cuda.synchronize()
    events: dict[str, list[tuple[torch.cuda.Event, torch.cuda.Event]]] = {"base": [], "cand": []}
    last = TimedCall(None, ())
    for r in range(max(rounds, 1)):
        order = (("base", base), ("cand", cand))
        for name, fn in order if r % 2 == 0 else order[::-1]:
            args = clone_args(inputs)
            flush.zero_()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            out = call(fn, args)
            end.record()
            events[name].append((start, end))
            if name == "cand":
                last = TimedCall(out, args)
            del out, args
    torch.cuda.synchronize()
    base_all = [s.elapsed_time(e) for s, e in events["base"]]
    cand_all = [s.elapsed_time(e) for s, e in events["cand"]]
    base_ms, base_iqr = _stats(base_all)
    cand_ms, cand_iqr = _stats(cand_all)
    speedup = base_ms / cand_ms if cand_ms > 0 else None
    return Timing(base_ms, cand_ms, base_iqr, cand_iqr, speedup,
                  speedup_ci(base_all, cand_all)), last
