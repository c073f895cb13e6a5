"""Device ceilings: the copy bandwidth and matrix throughput this GPU reaches, measured once.

`python -m runtime.ceilings` prints one JSON line: {"device_name", "copy_gbps", "mm_tflops":
{dtype: TFLOP/s}, "method"}. kgb stores it per device and software stack and divides each timed
case's achieved rates by it: the fraction of speed-of-light (DESIGN §5).

The method is the harness's own (runtime.timing): CUDA events around each call on one stream,
the best median of several sizes. Copy: a device-to-device copy of a buffer far larger than the
L2 (bytes read plus bytes written). Matrix: torch.mm on square operands large enough to saturate
the tensor cores, with TF32 off so that float32 is float32.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["measure", "main"]

_COPY_BYTES = (1 << 28, 1 << 30)  # 256 MiB and 1 GiB, both far above any L2
_MM_SIZES = (4096, 8192)
_MM_DTYPES = ("float16", "bfloat16", "float32")
_REPS = 20


def _median_ms(fn: Any, reps: int = _REPS) -> float:
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times: list[float] = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def measure() -> dict[str, Any]:
    """The ceilings of CUDA device 0."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda:0")
    copy_gbps = 0.0
    for nbytes in _COPY_BYTES:
        src = torch.empty(nbytes, dtype=torch.uint8, device=dev).fill_(1)
        dst = torch.empty_like(src)
        ms = _median_ms(lambda: dst.copy_(src))
        copy_gbps = max(copy_gbps, 2 * nbytes / (ms * 1e-3) / 1e9)
        del src, dst
    mm: dict[str, float] = {}
    for name in _MM_DTYPES:
        dtype = getattr(torch, name)
        best = 0.0
        for n in _MM_SIZES:
            a = torch.randn(n, n, device=dev).to(dtype)
            b = torch.randn(n, n, device=dev).to(dtype)
            ms = _median_ms(lambda: torch.mm(a, b))
            best = max(best, 2 * n**3 / (ms * 1e-3) / 1e12)
            del a, b
        mm[name] = best
    torch.cuda.empty_cache()
    return {"device_name": torch.cuda.get_device_name(0), "copy_gbps": copy_gbps,
            "mm_tflops": mm, "method": f"cuda events, median of {_REPS}, best of sizes "
            f"copy {list(_COPY_BYTES)} B, mm {list(_MM_SIZES)}; tf32 off"}


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA device: ceilings are measured on a GPU"}))
        return 1
    print(json.dumps(measure()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
