"""Device memory and the CUDA context, as the judge and the runner see them.

Which errors mean "out of device memory" (retried: runtime.evaluator), which mean the context
is lost (the rest of the job's cases are not run), and when cached memory is given back.
"""

from __future__ import annotations

import gc

import torch

from runtime.records import CaseReport
from runtime.remote import RemoteError
from runtime.trace import NotRecorded

# Text of errors after which a CUDA context is unusable (sticky errors); other exceptions on the
# cuda platform are followed by a probe of the context.
_CUDA_LOST_MARKERS = ("CUDA error", "Triton Error [CUDA]", "illegal memory access",
                      "device-side assert", "misaligned address", "unspecified launch failure")
# Device memory is shared by the checking slots of a GPU (and by the timing workers of one),
# so a case that runs out of it is run again (runtime.evaluator _OOM_WAITS_S), and a checking
# worker whose cached blocks exceed RESERVED_KEEP_BYTES after a case gives them back, so an
# idle worker does not sit on another's memory (the runner does the same after each checking
# call). Torch's out-of-memory error is the usual sign.
# A CUDA driver call that cannot allocate (a module load, a context's own buffers) raises
# torch.AcceleratorError "CUDA error: out of memory" instead (bench/gpu-oom.sh); that error is
# not sticky, so it is retried too rather than taken for a lost context.
_OOM_ERRORS = (getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError),
               torch.cuda.OutOfMemoryError)
RESERVED_KEEP_BYTES = 1 << 30


def is_oom(e: BaseException) -> bool:
    """Torch's out-of-memory error, a CUDA call's (see _OOM_ERRORS), an L3 trace that the
    profiler could not record (runtime.trace.NotRecorded: it lacked memory for its buffers),
    or the runner's report of one of these."""
    if isinstance(e, RemoteError):
        return e.oom
    return isinstance(e, (*_OOM_ERRORS, NotRecorded)) or (
        isinstance(e, RuntimeError) and "CUDA error: out of memory" in str(e))


def context_lost(e: BaseException, device: torch.device) -> bool:
    """Whether this process's CUDA context is unusable after `e` (a sticky error)."""
    if device.type != "cuda":
        return False
    if any(m in f"{type(e).__name__}: {e}" for m in _CUDA_LOST_MARKERS):
        return True
    try:
        torch.cuda.synchronize()
        torch.ones(1, device=device).add_(1).cpu()
        return False
    except BaseException:
        return True


class OutOfMemory(Exception):
    """A case ran out of device memory; carries the report it gets if no retry succeeds."""

    def __init__(self, report: CaseReport) -> None:
        super().__init__(report.message)
        self.report = report


def give_back_memory(device: torch.device | str, force: bool = False) -> None:
    """Return cached device memory to the GPU: always with `force` (after running out of it),
    else when more than RESERVED_KEEP_BYTES is cached. The caller decides that the device is
    a GPU and that this job gives memory back at all."""
    if force:
        gc.collect()
    if force or torch.cuda.memory_reserved(device) > RESERVED_KEEP_BYTES:
        torch.cuda.empty_cache()
