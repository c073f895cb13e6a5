"""Where a worker's first call of a candidate goes (issue 5): profile it in a fresh process.

usage: python3 bench/first-call.py TASK_DIR ENTRY [cold|warm] [N]
Imports torch and triton, loads TASK_DIR/solution.py, draws the inputs of a large elementwise
case (two N x N float16 tensors, default N 8192, as the ATen suite's timed cases), then calls
ENTRY under cProfile once and prints the wall time of that first call and the profile's top
functions by cumulative time, then the wall time of a second call. `cold` uses a fresh Triton
cache; `warm` one a previous `cold` run filled (TRITON_CACHE_DIR=/tmp/kgb-first-call), as a
timing job finds its candidate's cache after the checking job. Needs a CUDA GPU.
"""

import cProfile
import importlib.util
import io
import os
import pstats
import shutil
import sys
import time

CACHE = "/tmp/kgb-first-call"


def main() -> int:
    task, entry = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else "cold"
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 8192
    if mode == "cold":
        shutil.rmtree(CACHE, ignore_errors=True)
    os.environ["TRITON_CACHE_DIR"] = CACHE
    t0 = time.perf_counter()
    import torch
    import triton  # noqa: F401
    print(f"import torch, triton: {time.perf_counter() - t0:.3f} s")
    spec = importlib.util.spec_from_file_location("solution", os.path.join(task, "solution.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, entry)
    t0 = time.perf_counter()
    x = torch.randn(n, n, device="cuda", dtype=torch.float16)
    y = torch.randn(n, n, device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    print(f"inputs (context included): {time.perf_counter() - t0:.3f} s")
    before = set(sys.modules)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    fn(x, y)
    torch.cuda.synchronize()
    prof.disable()
    print(f"first call ({mode} cache): {time.perf_counter() - t0:.3f} s")
    new = sorted(set(sys.modules) - before)
    print(f"modules imported by it: {len(new)}: {' '.join(new[:40])}")
    t0 = time.perf_counter()
    fn(x, y)
    torch.cuda.synchronize()
    print(f"second call: {time.perf_counter() - t0:.6f} s")
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(30)
    print(s.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
