"""How a device tensor best crosses the judge-runner channel (runtime/wire.py) on a GPU: the
sender's copy from the device into a fresh sealed memfd, and the receiver's copy from its
mapping onto the device, each way timed on sizes the traced cases send (up to 1 GiB).

    python3 bench/wire-gpu.py [MiB ...]      (default: 64 256 1024)

Sender ways: `plain` (ftruncate, map, copy: what wire.py did until 2026-12-07), `populate`
(fallocate, map with MAP_POPULATE, copy), `pinned` (populate, then cudaHostRegister of the
mapping, so the copy is one DMA, then cudaHostUnregister), `staged` (copy into a pinned
tensor, then pwrite), `reused` (what runtime/wire.py does since 2026-12-07: through one
32 MiB pinned buffer kept by the process, a chunk at a time, pwrite each). Receiver ways: `plain` (private map, copy), `populate` (private map with
MAP_POPULATE), `pinned` (shared read-only map with MAP_POPULATE, registered read-only).
Prints the median of 3 of each, in ms and GB/s. Needs CUDA."""

from __future__ import annotations

import mmap
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from runtime import wire  # noqa: E402  (the repository's, whatever the working directory)

_cudart = torch.cuda.cudart()


def _memfd(n: int, fill: bool) -> int:
    fd = os.memfd_create("kgb-bench", os.MFD_CLOEXEC)
    if fill:
        os.posix_fallocate(fd, 0, n)
    else:
        os.ftruncate(fd, n)
    return fd


def _register(t: torch.Tensor, flags: int) -> None:
    err = _cudart.cudaHostRegister(t.data_ptr(), t.numel(), flags)
    if int(err) != 0:
        raise RuntimeError(f"cudaHostRegister: {err}")


def send(way: str, src: torch.Tensor) -> int:
    n = src.numel()
    if way == "reused":
        fd = _memfd(n, True)
        stage = wire._staging()
        assert stage is not None, "pinned memory refused"
        wire._write_staged(fd, 0, src, stage)
        return fd
    if way == "staged":
        fd = _memfd(n, True)
        host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
        host.copy_(src)
        view = host.numpy().data.cast("B")
        done = 0
        while done < n:
            done += os.pwrite(fd, view[done:], done)
        return fd
    fd = _memfd(n, way != "plain")
    flags = mmap.MAP_SHARED | (mmap.MAP_POPULATE if way != "plain" else 0)
    m = mmap.mmap(fd, n, flags)
    dst = torch.frombuffer(m, dtype=torch.uint8, count=n)
    if way == "pinned":
        _register(dst, 0)
    dst.copy_(src)
    if way == "pinned":
        _cudart.cudaHostUnregister(dst.data_ptr())
    del dst
    m.close()
    return fd


def receive(way: str, fd: int, n: int, device: torch.device) -> torch.Tensor:
    if way == "pinned":
        m = mmap.mmap(fd, n, mmap.MAP_SHARED | mmap.MAP_POPULATE, mmap.PROT_READ)
    else:
        flags = mmap.MAP_PRIVATE | (mmap.MAP_POPULATE if way == "populate" else 0)
        m = mmap.mmap(fd, n, flags, mmap.PROT_READ | mmap.PROT_WRITE)
    src = torch.frombuffer(m, dtype=torch.uint8, count=n)
    if way == "pinned":
        _register(src, 8)  # cudaHostRegisterReadOnly
    out = src.to(device)
    torch.cuda.synchronize()
    if way == "pinned":
        _cudart.cudaHostUnregister(src.data_ptr())
    del src
    m.close()
    return out


def _discard(_: object) -> None:
    pass


def _median_ms(fn: Callable[[], None]) -> float:
    times = []
    for _ in range(3):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    device = torch.device("cuda")
    print(torch.cuda.get_device_name(device), torch.__version__)
    for mib in [int(a) for a in argv[1:]] or [64, 256, 1024]:
        n = mib << 20
        src = torch.randint(0, 255, (n,), dtype=torch.uint8, device=device)
        for way in ("plain", "populate", "pinned", "staged", "reused"):
            send(way, src)  # once untimed: CUDA's own first-use costs
            fds: list[int] = []
            ms = _median_ms(lambda: fds.append(send(way, src)))
            for fd in fds:
                os.close(fd)
            print(f"send    {mib:5d} MiB {way:9s} {ms:9.1f} ms {n / ms / 1e6:6.2f} GB/s")
        fd = send("plain", src)
        for way in ("plain", "populate", "pinned"):
            got = receive(way, fd, n, device)
            assert torch.equal(got, src), way
            ms = _median_ms(lambda: _discard(receive(way, fd, n, device)))
            print(f"receive {mib:5d} MiB {way:9s} {ms:9.1f} ms {n / ms / 1e6:6.2f} GB/s")
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
