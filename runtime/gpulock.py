"""The GPU lock of timing workers that share one GPU (kgb eval --timing-jobs, DESIGN §5).

Several timing workers run on one GPU at once so that starting, loading and checking overlap;
the timed rounds must still have the GPU to themselves. Every piece of a worker's GPU work is
a section: `shared` (setup, inputs, checks: any number at once) or `exclusive` (the timed
rounds and the event/wall cross-check: alone). Leaving a section synchronises the device
first, so no kernel of a shared section is still running when an exclusive one starts.

kgb passes one lock file as an inherited descriptor and KGB_GPU_LOCK=<fd>:<k>, k numbering
the worker's GPU. The locks are POSIX record locks (fcntl), owned by the process: the kernel
drops them when a worker dies, however it dies. GPU k has two bytes: 2k is a turnstile, 2k+1
the lock itself. A reader passes through the turnstile, a writer holds it while waiting, so
a waiting exclusive section is not starved by a stream of shared ones.

An exclusive section longer than HOLD_MAX_S ends the worker (exit status EXIT_HOG, the
reason on stderr): a candidate whose timed call hangs fails alone, instead of stalling every
worker queued behind it into their own timeouts (kgb extends a timing job's timeout by
HOLD_MAX_S for each other worker on its GPU; src/cmd_eval.c EVAL_GPU_HOLD_MAX_S).
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["ENV", "EXIT_HOG", "HOLD_MAX_S", "GpuLock", "from_env"]

ENV = "KGB_GPU_LOCK"
HOLD_MAX_S = 60.0
EXIT_HOG = 5


class GpuLock:
    """One worker's view of its GPU's lock. Without a descriptor every section is a no-op
    (one worker per GPU, or a platform without one). At most one section is open at a time:
    entering one leaves the previous."""

    def __init__(self, fd: int | None, index: int = 0,
                 sync: Callable[[], None] | None = None, hold_max_s: float = HOLD_MAX_S):
        self.fd, self.sync, self.hold_max_s = fd, sync, hold_max_s
        self._turnstile, self._gpu = 2 * index, 2 * index + 1
        self.held: str | None = None  # "shared", "exclusive" or None
        self.wait_ms = 0.0  # summed time spent waiting to enter sections
        self.exclusive_spans: list[tuple[float, float]] = []  # time.monotonic() pairs
        self._since = 0.0
        self._watchdog: threading.Timer | None = None

    def _lock(self, how: int, start: int) -> None:
        assert self.fd is not None
        fcntl.lockf(self.fd, how, 1, start, os.SEEK_SET)

    def shared(self) -> None:
        """Enter a shared section (leaving any open one)."""
        if self.fd is None or self.held == "shared":
            return
        self.release()
        t0 = time.perf_counter()
        self._lock(fcntl.LOCK_EX, self._turnstile)
        self._lock(fcntl.LOCK_SH, self._gpu)
        self._lock(fcntl.LOCK_UN, self._turnstile)
        self.wait_ms += (time.perf_counter() - t0) * 1e3
        self.held = "shared"

    def exclusive(self) -> None:
        """Enter an exclusive section (leaving any open one): no other worker's section is
        open on this GPU until release()."""
        if self.fd is None or self.held == "exclusive":
            return
        self.release()
        t0 = time.perf_counter()
        self._lock(fcntl.LOCK_EX, self._turnstile)
        self._lock(fcntl.LOCK_EX, self._gpu)
        self.wait_ms += (time.perf_counter() - t0) * 1e3
        self.held = "exclusive"
        self._since = time.monotonic()
        self._watchdog = threading.Timer(self.hold_max_s, self._hog)
        self._watchdog.daemon = True
        self._watchdog.start()

    def release(self) -> None:
        """Leave the open section, if any, once the device has finished its work."""
        if self.fd is None or self.held is None:
            return
        if self.sync is not None:
            try:
                self.sync()
            except BaseException:  # a lost context: nothing more can run on it anyway
                pass
        if self.held == "exclusive":
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None
            self.exclusive_spans.append((self._since, time.monotonic()))
            self._lock(fcntl.LOCK_UN, self._gpu)
            self._lock(fcntl.LOCK_UN, self._turnstile)
        else:
            self._lock(fcntl.LOCK_UN, self._gpu)
        self.held = None

    def _hog(self) -> None:
        sys.stderr.write(f"kgb worker: held the GPU alone for more than {self.hold_max_s:.0f} s "
                         "(a timed call that does not end): stopped, so that the other "
                         "workers on this GPU can go on\n")
        sys.stderr.flush()
        os._exit(EXIT_HOG)


def from_env(sync: Callable[[], None] | None = None) -> GpuLock:
    """The lock kgb passed in KGB_GPU_LOCK, or a no-op one. Raises ValueError when the
    variable is malformed or its descriptor is not open."""
    value = os.environ.get(ENV)
    if not value:
        return GpuLock(None)
    fd_text, _, index_text = value.partition(":")
    try:
        fd, index = int(fd_text), int(index_text or "0")
    except ValueError:
        raise ValueError(f"{ENV}={value!r}: expected <fd>:<gpu index>") from None
    try:
        os.fstat(fd)
    except OSError as e:
        raise ValueError(f"{ENV}={value!r}: descriptor {fd} is not open ({e.strerror})") from None
    return GpuLock(fd, index, sync)
