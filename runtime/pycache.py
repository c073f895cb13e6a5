"""Fills the workers' bytecode cache: `python -m runtime.pycache`, run by kgb (trusted, outside
the sandbox) before it starts a platform's workers, with PYTHONPYCACHEPREFIX set to the cache
and bytecode writing on (src/platform.h platform_pycache_fill).

Workers never write bytecode (PYTHONDONTWRITEBYTECODE, and a read-only file system in the
sandbox), so where the Python environment ships none, as on the H200 box (its environment sets
PYTHONDONTWRITEBYTECODE and its site-packages have no __pycache__), every worker compiled torch,
triton and torch._dynamo from source: 7-8 s of each checking job's start (bench/results/
h200-2026-12-04d). Importing here what a worker imports leaves their bytecode in the cache,
which workers then read (PYTHONPYCACHEPREFIX) and cannot change. Prints one JSON object.
"""

from __future__ import annotations

import importlib
import json
import sys
import time

# What a worker imports before its first case: its own modules (runtime.worker imports torch,
# triton and numpy), what the checking job's L3 trace imports (torch._dynamo, the profiler),
# and what runtime.startup.preload imports.
MODULES = ("runtime.worker", "torch._dynamo", "torch.profiler")


def main() -> int:
    t0 = time.perf_counter()
    failed = {}
    from runtime.startup import PRELOAD_MODULES
    for name in MODULES + PRELOAD_MODULES:
        try:
            importlib.import_module(name)
        except Exception as e:  # a worker that needs it will say why
            failed[name] = f"{type(e).__name__}: {e}"[:200]
    print(json.dumps({"prefix": sys.pycache_prefix, "writes": not sys.dont_write_bytecode,
                      "modules": len(sys.modules), "failed": failed,
                      "seconds": round(time.perf_counter() - t0, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
