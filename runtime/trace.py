"""Anti-hack layer L3, device trace (docs/anti-hack.md). CUDA only.

A passing case runs once more under the torch profiler with CUDA activity on. The kernels the
device ran are split in two by name: those Triton compiled in this process (JITFunction.run
returns the compiled kernel, whose `name` is the device function's name as the profiler sees
it), and everything else. The candidate is flagged when

- no Triton kernel ran although the candidate produced values (L2 catches most of these; L3
  also sees a kernel launched on a side stream or through a path L2's patch missed), or
- kernels that are not Triton's and do more than fill memory take more than MAX_FOREIGN_SHARE
  of the device time: torch did the work and a Triton kernel only moved the result, which L2
  cannot see (with Triton skipped the output is not written) and L1 missed.

Filling memory (torch.zeros, torch.full: memsets and fill kernels) is allocation, and a copy
within one dtype (.contiguous(), out.copy_(tmp): memcpy and ATen's no-cast copy kernel) is data
movement; L1 allows both, and neither counts as foreign compute. Copies that convert dtypes do
count. The gap this leaves: for an operator that is itself a copy (clone, a transpose made
contiguous), torch's copy into a temporary followed by a Triton kernel that moves it into the
output passes L2 and L3; it cannot be faster than the baseline, only pass. The verdict is a pure
function of the kernel list (judge), so the rule is tested without a GPU.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from triton.runtime.jit import JITFunction

__all__ = ["Kernel", "MAX_FOREIGN_SHARE", "NotRecorded", "device_kernels", "judge",
           "kernel_sum_us", "sum_judge", "traced"]

# "Negligible share" (issue 4): above this share of device time in foreign compute kernels the
# candidate did not do the work in Triton. Measured honest candidates spend 0% there (they may
# only allocate); 10% leaves room for a small host-side fix-up a task's rules allow.
MAX_FOREIGN_SHARE = 0.10

# Kernel names that only fill memory (allocation with a value), from ATen's fill and memset.
_FILL_MARKERS = ("Memset", "FillFunctor", "fill_kernel")
# Same-dtype copies: the profiler's "Memcpy DtoD", and ATen's direct copy, the one user of
# gpu_kernel_nocast (seen on the H200 for .contiguous() of a strided input).
_COPY_MARKERS = ("Memcpy DtoD", "direct_copy_kernel", "gpu_kernel_impl_nocast")


class NotRecorded(RuntimeError):
    """The profiler recorded nothing, not even the harness's own kernel: the trace says nothing
    about the candidate. On the H200 a device with no memory left for the profiler's
    buffers gave empty traces, which read as "the device ran nothing" (bench/gpu-oom.sh)."""


@dataclass(frozen=True)
class Kernel:
    """One device activity: its name and duration in microseconds."""

    name: str
    us: float


def _is_fill(name: str) -> bool:
    """Allocation or data movement: not the candidate's arithmetic done by torch."""
    return any(m in name for m in _FILL_MARKERS + _COPY_MARKERS)


# Host-to-device copies: the upload of host data, which counts as foreign (a candidate could
# build a result on the host from its scalar arguments and upload it), except in tasks whose
# inputs are lists of device pointers (the task allows data_ptr: the batched cuBLAS routines),
# where the upload of the pointer table is part of the routine's own convention.
_UPLOAD_MARKERS = ("Memcpy HtoD",)


def judge(kernels: list[Kernel], triton_names: set[str],
          pointer_tables: bool = False) -> str | None:
    """None when the trace is that of a Triton kernel doing the work; else the finding.
    `pointer_tables`: the task's inputs are pointer arrays, whose upload is not compute."""
    def moves_data(name: str) -> bool:
        return _is_fill(name) or (pointer_tables and any(m in name for m in _UPLOAD_MARKERS))

    ran = [k for k in kernels if k.name in triton_names]
    foreign = [k for k in kernels if k.name not in triton_names and not moves_data(k.name)]
    if not ran:
        what = (f"; the device ran only: {_top(foreign or kernels)}" if kernels
                else "; the device ran nothing")
        return f"L3 device trace: no Triton kernel ran{what}"
    total = sum(k.us for k in kernels)
    share = sum(k.us for k in foreign) / total if total > 0 else 0.0
    if share > MAX_FOREIGN_SHARE:
        return (f"L3 device trace: {share:.0%} of device time is in kernels Triton did not "
                f"compile (at most {MAX_FOREIGN_SHARE:.0%} allowed): {_top(foreign)}")
    return None


def _top(kernels: list[Kernel], n: int = 3) -> str:
    by_name: dict[str, float] = {}
    for k in kernels:
        by_name[k.name] = by_name.get(k.name, 0.0) + k.us
    top = sorted(by_name.items(), key=lambda kv: -kv[1])[:n]
    return ", ".join(f"{name[:200]} ({us:.1f} us)" for name, us in top)


@contextlib.contextmanager
def _triton_names() -> Iterator[set[str]]:
    """Within the block, the names of the kernels launched through JITFunction.run."""
    names: set[str] = set()
    launch = vars(JITFunction)["run"]

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        kernel = launch(self, *args, **kwargs)
        name = getattr(kernel, "name", None)
        if isinstance(name, str):
            names.add(name)
        return kernel

    JITFunction.run = run
    try:
        yield names
    finally:
        JITFunction.run = launch


# The kernel-sum leg: on one stream the device runs the call's work one kernel after another
# between the two events, so an honest sum is at most their elapsed time (the H200, 201 traced
# cases of 57 tasks: at most 0.87 of it, bench/results/h200-2026-12-04). Margins for the clocks
# and the profiler's own activity: 1.5x and 50 us, both exceeded for a finding.
_SUM_RATIO = 1.5
_SUM_MIN_US = 50.0


def sum_judge(kernel_us: float, event_us: float) -> str | None:
    """The kernel-sum verdict: a finding when the device did much more work during the traced
    call than the call's stream waited for (another stream, work launched after the call
    returned); None otherwise. Fails closed on a non-finite or negative time."""
    if not (math.isfinite(kernel_us) and math.isfinite(event_us)) or min(kernel_us,
                                                                          event_us) < 0:
        return (f"L3 kernel sum: no usable times (kernels {kernel_us} us, events {event_us} "
                "us): the check fails closed")
    if kernel_us > _SUM_RATIO * event_us + _SUM_MIN_US:
        return (f"L3 kernel sum: the device ran {kernel_us:.1f} us of kernels during a call whose "
                f"stream's events span {event_us:.1f} us: work ran outside the call's stream")
    return None


def kernel_sum_us(kernels: list[Kernel]) -> float:
    """The device time of every activity of a trace, summed."""
    return sum(k.us for k in kernels)


def device_kernels(activities: list[tuple[str, float, float]]) -> list[Kernel]:
    """The kernels of a trace from its device activities (name, start, microseconds), less the
    harness's sentinel: a fill that traced() runs before the call, so the earliest activity.
    Raises NotRecorded when there is no activity at all: with the sentinel in the trace, an
    empty one means the profiler recorded nothing, not that the candidate ran nothing. Where
    the earliest activity is not a fill (the profiler lost the sentinel but not the rest), the
    rest is judged whole, as it was before the sentinel."""
    if not activities:
        raise NotRecorded("L3 device trace: the profiler recorded nothing, not even the "
                          "harness's own kernel ahead of the call, so the trace cannot be judged")
    ordered = sorted(activities, key=lambda a: a[1])
    if any(m in ordered[0][0] for m in _FILL_MARKERS):
        ordered = ordered[1:]
    return [Kernel(name, us) for name, _, us in ordered]


def traced(fn: Callable[[], Any]) -> tuple[Any, list[Kernel], set[str], float]:
    """Calls fn() with the profiler on; its result, the device's kernels, Triton's names, and
    the microseconds between CUDA events recorded on the current stream around the call.

    The events are the third leg of the timing cross-check (docs/anti-hack.md): work issued on
    the current stream lies between them, so an honest call's kernel sum is at most their
    elapsed time; a larger sum means device work the timed stream did not wait for (another
    stream, or work launched after the call returned)."""
    import torch
    from torch.profiler import DeviceType, ProfilerActivity, profile

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    sentinel = torch.ones(1, device="cuda")
    torch.cuda.synchronize()
    with _triton_names() as names, profile(activities=[ProfilerActivity.CUDA]) as prof:
        sentinel.zero_()  # device_kernels: proof that the profiler records this trace
        start.record()
        out = fn()
        end.record()
        torch.cuda.synchronize()
    kernels = device_kernels([(e.name, float(e.time_range.start), float(e.time_range.elapsed_us()))
                              for e in prof.events() if e.device_type == DeviceType.CUDA])
    return out, kernels, set(names), float(start.elapsed_time(end)) * 1e3
