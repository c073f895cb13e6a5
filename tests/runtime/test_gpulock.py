"""runtime.gpulock: exclusive sections of concurrent workers never overlap any other section,
a waiting exclusive section is not starved, and a worker that holds the GPU too long is ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# One worker: `rounds` times a shared section then an exclusive one (none when its time is
# negative), each sleeping; prints the sections as [kind, start, end] in time.monotonic()
# seconds. The lock comes from the environment, through an inherited descriptor, as kgb
# passes it.
_WORKER = """
import json, sys, time
from runtime.gpulock import from_env
lock = from_env()
rounds, shared_s, excl_s = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
spans = []
for _ in range(rounds):
    lock.shared(); t0 = time.monotonic(); time.sleep(shared_s); spans.append(["shared", t0, time.monotonic()])
    if excl_s >= 0:
        lock.exclusive(); t0 = time.monotonic(); time.sleep(excl_s); spans.append(["exclusive", t0, time.monotonic()])
    lock.release()
print(json.dumps({"spans": spans, "recorded": lock.exclusive_spans, "wait_ms": lock.wait_ms}))
"""


def _start(lock_path: Path, *args: str, index: int = 0) -> subprocess.Popen[str]:
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        env = dict(os.environ, KGB_GPU_LOCK=f"{fd}:{index}", PYTHONPATH=str(ROOT))
        return subprocess.Popen([sys.executable, "-c", _WORKER, *args], env=env, pass_fds=(fd,),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(fd)


def _overlap(a: list, b: list) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def test_exclusive_sections_overlap_no_other_section(tmp_path: Path) -> None:
    lock = tmp_path / "gpu.lock"
    procs = [_start(lock, "6", "0.02", "0.03") for _ in range(4)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        results.append(json.loads(out))
    for i, r in enumerate(results):
        # The lock's own record of its exclusive spans encloses each section's.
        assert len(r["recorded"]) == 6
        for s in r["spans"]:
            if s[0] != "exclusive":
                continue
            for j, other in enumerate(results):
                if j != i:
                    clash = [o for o in other["spans"] if _overlap(s, o)]
                    assert not clash, f"worker {i}'s exclusive {s} overlaps worker {j}'s {clash}"
    # Shared sections did run side by side (the point of several workers).
    shared = [s for r in results for s in r["spans"] if s[0] == "shared"]
    assert any(_overlap(a, b) for a in shared for b in shared if a is not b)
    assert sum(r["wait_ms"] for r in results) > 0


def test_different_gpus_do_not_wait_for_each_other(tmp_path: Path) -> None:
    lock = tmp_path / "gpu.lock"
    t0 = time.monotonic()
    procs = [_start(lock, "1", "0", "1.0", index=k) for k in range(3)]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    # Three 1 s exclusive sections on three GPUs run at once (serialised they take 3 s).
    assert time.monotonic() - t0 < 2.8


def test_a_waiting_exclusive_section_is_not_starved_by_shared_ones(tmp_path: Path) -> None:
    lock = tmp_path / "gpu.lock"
    # Readers whose shared sections follow each other back to back for about 4 s, always one
    # of them inside one.
    readers = [_start(lock, "40", "0.1", "-1") for _ in range(3)]
    time.sleep(0.5)
    t0 = time.monotonic()
    writer = _start(lock, "1", "0", "0")
    _, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    # The writer's turn came after the shared sections open when it asked (at most 0.1 s
    # each), not after all of the readers' remaining seconds.
    assert time.monotonic() - t0 < 2.5
    for p in readers:
        p.communicate(timeout=60)


def test_a_worker_holding_the_gpu_too_long_is_ended_and_the_lock_freed(tmp_path: Path) -> None:
    from runtime.gpulock import EXIT_HOG
    lock = tmp_path / "gpu.lock"
    hog_script = ("import time\nfrom runtime.gpulock import from_env\nlock = from_env()\n"
                  "lock.hold_max_s = 0.5\nlock.exclusive()\ntime.sleep(30)\n")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    env = dict(os.environ, KGB_GPU_LOCK=f"{fd}:0", PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    hog = subprocess.Popen([sys.executable, "-c", hog_script], env=env, pass_fds=(fd,),
                           stderr=subprocess.PIPE, text=True)
    os.close(fd)
    time.sleep(0.3)
    other = _start(lock, "1", "0", "0")
    _, err = hog.communicate(timeout=60)
    assert hog.returncode == EXIT_HOG
    assert "held the GPU alone" in err
    _, err = other.communicate(timeout=60)
    assert other.returncode == 0, err
    assert time.monotonic() - t0 < 10  # not the hog's 30 s


def test_from_env_without_the_variable_is_a_no_op_and_rejects_malformed_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime.gpulock import from_env
    monkeypatch.delenv("KGB_GPU_LOCK", raising=False)
    lock = from_env()
    lock.exclusive()
    lock.release()
    assert lock.fd is None and lock.exclusive_spans == []
    monkeypatch.setenv("KGB_GPU_LOCK", "four:0")
    with pytest.raises(ValueError, match="expected <fd>:<gpu index>"):
        from_env()
    monkeypatch.setenv("KGB_GPU_LOCK", "987:0")
    with pytest.raises(ValueError, match="not open"):
        from_env()
