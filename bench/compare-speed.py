"""runtime.compare's all-finite fast path against its general path (the code before it).

usage: .venv/bin/python bench/compare-speed.py
Times compare._close on 1M-element float16 and float32 outputs against a float64 reference,
once through the fast path (atol > 0, every value finite) and once through the general path
(atol = 0 sends it there: the general path is the whole function as it was before the fast path
was added). Prints the median of 7 calls each and the ratio; one thread, so compare ratios, not
absolute times, on a shared machine.
"""

import statistics
import sys
import time

import torch

sys.path.insert(0, ".")
from runtime.compare import _close  # noqa: E402


def median_ms(fn) -> float:
    ts = []
    for _ in range(7):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)


def main() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for dt in (torch.float16, torch.float32):
        ref = torch.randn(1041, 1023, dtype=torch.float64)
        cand = ref.to(dt)
        fast = median_ms(lambda: _close(cand, ref, dt, 1e-3, 1e-3, "o"))
        general = median_ms(lambda: _close(cand, ref, dt, 0.0, 1e-3, "o"))
        print(f"{dt}: fast path {fast:.1f} ms, general path {general:.1f} ms, "
              f"ratio {general / fast:.2f}x")


if __name__ == "__main__":
    main()
