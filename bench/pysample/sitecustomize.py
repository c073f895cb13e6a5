"""A sampling profiler for kgb's workers (judge, runner, replay runner), for bench only.

Loaded by Python at start-up when bench/pysample/python.sh is the workers' Python
(KGB_PYTHON): a daemon thread samples every thread's stack each KGB_SAMPLE_MS (default 5)
milliseconds and rewrites KGB_SAMPLE_DIR/<module>-<pid>.folded once a second, one line per
distinct stack ("frame;frame;... count", the collapsed format of flame graphs). Rewriting
keeps what was sampled when a worker ends with os._exit or is killed. Only with
--sandbox=off: the sandbox hides this directory and the output directory from the workers.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time


def _frame_name(code: object) -> str:
    path = getattr(code, "co_filename", "?")
    parts = path.replace("\\", "/").split("/")
    return f"{'/'.join(parts[-2:])}:{getattr(code, 'co_name', '?')}"


def _sampler(out_dir: str, period_s: float) -> None:
    me = threading.get_ident()
    counts: collections.Counter[str] = collections.Counter()
    path = ""
    last_write = time.monotonic()
    while True:
        time.sleep(period_s)
        for ident, frame in sys._current_frames().items():
            if ident == me:
                continue
            stack = []
            f = frame
            while f is not None:
                stack.append(_frame_name(f.f_code))
                f = f.f_back
            counts[";".join(reversed(stack))] += 1
        now = time.monotonic()
        if now - last_write >= 1.0:
            last_write = now
            if not path:  # the main module's path is in argv[0] once runpy has set it
                role = os.path.basename(sys.argv[0] if sys.argv else "") or "python"
                path = os.path.join(out_dir, f"{role}-{os.getpid()}.folded")
            tmp = path + ".tmp"
            with open(tmp, "w") as fh:
                # The process's own CPU time so far (user, system), in clock ticks: a worker
                # that waits is told apart from one that computes.
                with open("/proc/self/stat") as st:
                    fields = st.read().rpartition(")")[2].split()
                fh.write(f"#cpu {fields[11]} {fields[12]} {os.sysconf('SC_CLK_TCK')}\n")
                for stack, n in counts.items():
                    fh.write(f"{stack} {n}\n")
            os.replace(tmp, path)


def _start() -> None:
    out_dir = os.environ.get("KGB_SAMPLE_DIR")
    if not out_dir:
        return
    period = float(os.environ.get("KGB_SAMPLE_MS", "5")) / 1e3
    threading.Thread(target=_sampler, args=(out_dir, period), daemon=True,
                     name="kgb-sampler").start()


_start()
