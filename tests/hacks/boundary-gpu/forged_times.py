# expect: hack timing bound
# Forged times (GPU): an honest kernel, but at its first call it replaces, in its own process,
# the function that turns the timed rounds' CUDA events into milliseconds, so that every time
# the runner reports is 50 times too short. Against the one-process worker of 2026-12-04 the
# same trick stored a speedup of 50 for a kernel that was not faster. It silences the runner's
# integrity check too (which would report the replaced function), so that only the judge's
# clock stands in its way: around the cross-check's calls, whose answers it checks, it does
# not allow the reported time.
import gc
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def _forge() -> None:
    timing = sys.modules.get("runtime.timing")
    if timing is not None and not getattr(timing, "_forged", False):
        real = timing._elapsed
        # Wherever the runner's timing code holds the function: its own module, and any that
        # imported it by name (runtime.runner_timing does).
        for name in ("runtime.timing", "runtime.runner_timing"):
            m = sys.modules.get(name)
            if m is not None and getattr(m, "_elapsed", None) is real:
                m._elapsed = lambda events: [ms / 50 for ms in real(events)]
        timing._forged = True
        for o in gc.get_objects():
            if type(o).__name__ == "Snapshot" and hasattr(o, "replaced"):
                try:
                    o.replaced = lambda: None
                except (AttributeError, TypeError):
                    pass
        print("boundary attack ran: timing forged", file=sys.stderr)


def scale(self: torch.Tensor) -> torch.Tensor:
    _forge()
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y
