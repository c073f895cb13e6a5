"""The judge-runner channel (docs/protocol.md, "Judge and runner"): messages and values.

A job's judge (runtime.worker) never imports the candidate; its runner (runtime.runner) does,
and talks only to the judge, over a SOCK_SEQPACKET socket that kgb gives both as fd PEER_FD.
Each message is one packet, a small JSON header, optionally with one memfd passed alongside
(SCM_RIGHTS) that holds the message's body: a JSON document (its length in the header's
`body`) followed by the raw bytes of every tensor storage the body names. Values (arguments,
outputs) are encoded by encode_value() and rebuilt by decode_value(), which keeps storage
sharing (an output that is a view of an argument stays one) and lazy conjugate/negative bits.

The runner is hostile once the candidate has run: everything the judge reads from it is data
whose size is capped (`cap`, the memfd's size; MAX_HEADER; MAX_DEPTH, MAX_ITEMS) and checked
before use: dtype names from a list, shapes and strides non-negative and within the storage
the bytes came with, devices "cpu" or the judge's own. A body's memfds must be sealed
against writing, shrinking and growing (SEALS) before the judge maps them, so nothing the
runner does afterwards changes what the judge judges, and no read of the mapping faults.
"""

from __future__ import annotations

import fcntl
import json
import math
import mmap
import os
import socket
from dataclasses import dataclass
from typing import Any

import torch

from runtime.inputs import BuiltArg

__all__ = ["PEER_FD", "REPLAY_FD", "WireError", "Channel", "encode_value", "Body",
           "encode_args", "decode_args", "Storages", "Unsupported"]

PEER_FD = 5  # src/sandbox.h SANDBOX_PEER_FD
REPLAY_FD = 6  # src/sandbox.h SANDBOX_REPLAY_FD: the judge's end to its replay runner
MAX_HEADER = 64 << 10  # one packet's JSON header
MAX_BODY_JSON = 16 << 20  # the body's JSON part
MAX_DEPTH = 8  # nesting of lists and tuples in a value
MAX_ITEMS = 1 << 16  # values and tensors in one body
MAX_DIMS = 16
# A memfd is a file: the sandbox limits each to 1 GiB (RLIMIT_FSIZE), so a body is spread over
# several of this size, at most MAX_FILES (the H200 run of bench/results/h200-2026-12-05
# crashed every job whose answer passed 1 GiB, with "File too large", before this).
FILE_BYTES = 256 << 20
MAX_FILES = 250
# What a body's memfd must be sealed against: being written, shrunk or grown (_Files).
SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW

_DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, name) for name in (
        "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128",
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
    if isinstance(getattr(torch, name, None), torch.dtype)}
_DTYPE_NAMES = {v: k for k, v in _DTYPES.items()}
_MEMORY_FORMATS = {name: getattr(torch, name) for name in (
    "contiguous_format", "channels_last", "channels_last_3d", "preserve_format")}


class WireError(Exception):
    """A message that breaks the channel's rules (size, shape, bounds, type): the sender's
    fault. From a runner it is that candidate's `protocol` or `bad_output`, never a pass."""


def _float(x: float) -> Any:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _unfloat(x: Any) -> float:
    if isinstance(x, str) and x in ("nan", "inf", "-inf"):
        return float(x)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    raise WireError(f"expected a number, got {type(x).__name__}")


class Storages:
    """The distinct storages of the tensors being encoded, in order of first use."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, int], int] = {}
        self.tensors: list[torch.Tensor] = []  # each a uint8 view of a whole storage

    def index(self, t: torch.Tensor) -> int:
        st = t.untyped_storage()
        key = (str(t.device), st.data_ptr() if st.nbytes() else -len(self.tensors) - 1)
        if key not in self.by_key:
            raw = torch.empty(0, dtype=torch.uint8, device=t.device)
            raw.set_(st, 0, (st.nbytes(),), (1,))
            self.by_key[key] = len(self.tensors)
            self.tensors.append(raw)
        return self.by_key[key]


def encode_value(v: Any, st: Storages, depth: int = 0) -> Any:
    """A value as JSON-able data; its tensors' storages are added to `st`."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deep")
    if isinstance(v, torch.Tensor):
        conj, neg = v.is_conj(), v.is_neg()
        if conj:
            v = v.conj()
        if neg:
            v = torch._neg_view(v)
        dtype = _DTYPE_NAMES.get(v.dtype)
        if dtype is None:
            return {"X": f"tensor of dtype {v.dtype}"}
        d = {"T": st.index(v), "dtype": dtype, "shape": list(v.shape),
             "stride": list(v.stride()), "off": v.storage_offset(), "dev": v.device.type,
             "conj": conj, "neg": neg}
        if type(v) is not torch.Tensor:
            d["type"] = type(v).__name__[:64]
        return d
    if v is None:
        return None
    if isinstance(v, bool):
        return {"b": v}
    if isinstance(v, int):
        return {"i": str(v)}  # any size, exactly
    if isinstance(v, float):
        return {"f": _float(v)}
    if isinstance(v, complex):
        return {"c": [_float(v.real), _float(v.imag)]}
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, (list, tuple)):
        return {"L" if isinstance(v, list) else "U": [encode_value(x, st, depth + 1) for x in v]}
    if isinstance(v, torch.dtype):
        return {"dt": _DTYPE_NAMES.get(v, str(v))}
    if isinstance(v, torch.device):
        return {"dv": str(v)}
    for name, mf in _MEMORY_FORMATS.items():
        if v is mf:
            return {"mf": name}
    return {"X": type(v).__name__[:64]}


@dataclass
class Body:
    """A received body: its JSON part and its storages (uint8, mapped from the sealed files)."""

    doc: Any
    storages: list[torch.Tensor]  # uint8, on the receiver's device for each (see decode)


class _Decoder:
    def __init__(self, storages: list[torch.Tensor], device: torch.device) -> None:
        self.storages, self.device, self.items = storages, device, 0

    def tensor(self, d: dict[str, Any]) -> torch.Tensor:
        dtype = _DTYPES.get(d.get("dtype"))  # type: ignore[arg-type]
        idx, shape, stride, off = d.get("T"), d.get("shape"), d.get("stride"), d.get("off")
        if dtype is None:
            raise WireError(f"unknown dtype {str(d.get('dtype'))[:40]!r}")
        if not (isinstance(idx, int) and 0 <= idx < len(self.storages)):
            raise WireError("tensor names no storage of the message")
        if not (isinstance(shape, list) and isinstance(stride, list) and len(shape) == len(stride)
                and len(shape) <= MAX_DIMS
                and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                        for x in shape + stride)
                and isinstance(off, int) and not isinstance(off, bool) and off >= 0):
            raise WireError("tensor with a bad shape, stride or offset")
        if d.get("dev") not in ("cpu", self.device.type):
            raise WireError(f"tensor on device {str(d.get('dev'))[:20]!r}")
        raw = self.storages[idx]
        item = torch.empty(0, dtype=dtype).element_size()
        numel = math.prod(shape)
        last = off + sum((s - 1) * t for s, t in zip(shape, stride)) if numel else off
        if numel and (last + 1) * item > raw.numel():
            raise WireError(f"tensor reaches element {last} of a storage of {raw.numel()} bytes")
        device = torch.device("cpu") if d["dev"] == "cpu" else self.device
        if raw.device != device:  # the same bytes seen from the other device: a copy
            raw = raw.to(device)
            self.storages[idx] = raw
        t = torch.empty(0, dtype=dtype, device=device)
        t.set_(raw.untyped_storage(), off, shape, stride)
        if d.get("neg") is True:
            t = torch._neg_view(t)
        if d.get("conj") is True and t.is_complex():
            t = t.conj()
        if "type" in d:
            # A subclass of torch.Tensor in the runner: the values come as a plain tensor,
            # the type's name as a subclass of the same name, so that the exact-type check
            # (runtime.compare) fails it by name.
            name = "".join(c for c in str(d["type"])[:64] if c.isalnum() or c == "_") or "T"
            t = t.as_subclass(_subclass(name))
        return t

    def value(self, v: Any, depth: int = 0) -> Any:
        self.items += 1
        if self.items > MAX_ITEMS or depth > MAX_DEPTH:
            raise WireError("value too large or nested too deep")
        if v is None:
            return None
        if not isinstance(v, dict) or len(v) < 1:
            raise WireError("malformed value")
        if "T" in v:
            return self.tensor(v)
        (k, x), = list(v.items())[:1]
        if k == "b" and isinstance(x, bool):
            return x
        if k == "i" and isinstance(x, str) and len(x) <= 400:
            try:
                return int(x)
            except ValueError:
                raise WireError("malformed integer") from None
        if k == "f":
            return _unfloat(x)
        if k == "c" and isinstance(x, list) and len(x) == 2:
            return complex(_unfloat(x[0]), _unfloat(x[1]))
        if k == "s" and isinstance(x, str):
            return x
        if k in ("L", "U") and isinstance(x, list):
            items = [self.value(y, depth + 1) for y in x]
            return items if k == "L" else tuple(items)
        if k == "dt" and isinstance(x, str):
            if x not in _DTYPES:
                raise WireError(f"unknown dtype {x[:40]!r}")
            return _DTYPES[x]
        if k == "dv" and isinstance(x, str):
            return torch.device("cpu" if x == "cpu" else self.device)
        if k == "mf" and x in _MEMORY_FORMATS:
            return _MEMORY_FORMATS[x]
        if k == "X" and isinstance(x, str):
            return Unsupported(x[:64])
        raise WireError("malformed value")


_SUBCLASSES: dict[str, type] = {}


def _subclass(name: str) -> type:
    if name not in _SUBCLASSES and len(_SUBCLASSES) < 64:
        _SUBCLASSES[name] = type(name, (torch.Tensor,), {})
    return _SUBCLASSES.get(name) or _subclass("Subclass")


class Unsupported:
    """A value the runner could not send (an object of another type): never equal to an
    expected output, so the comparison says bad_output."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<{self.what}>"


def encode_args(args: tuple[BuiltArg, ...] | list[BuiltArg], st: Storages) -> list[Any]:
    return [{"name": a.name, "kw": a.keyword, "v": encode_value(a.value, st)} for a in args]


def decode_args(doc: Any, dec: _Decoder, like: tuple[BuiltArg, ...] | None = None
                ) -> tuple[BuiltArg, ...]:
    """Arguments back; with `like` (what the judge sent), names and order must match it."""
    if not isinstance(doc, list) or (like is not None and len(doc) != len(like)):
        raise WireError("arguments do not match the call's")
    out = []
    for i, a in enumerate(doc):
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise WireError("malformed argument")
        if like is not None and (a["name"] != like[i].name):
            raise WireError("arguments do not match the call's")
        out.append(BuiltArg(a["name"], dec.value(a.get("v")), bool(a.get("kw"))))
    return tuple(out)


class _Files:
    """The memfds of one message's body, each at most FILE_BYTES (a worker's files are limited
    in size, RLIMIT_FSIZE, and a memfd is a file), laid out in order, a storage split across
    them where it does not fit; each storage's place is a list of [file, offset, bytes].

    Each file is sized first, filled (fill) and sealed (SEALS) before it is sent: the
    receiver checks the seals and reads the bytes in place, from a private mapping. A sealed
    memfd can neither change nor shrink, so what the receiver maps is what it judges (no later
    write reaches it) and no access faults (a shrunk file would raise SIGBUS in the judge).
    A GPU tensor is copied to the device straight from the receiver's mapping; the sender
    stages it through pinned host memory (_write_staged)."""

    def __init__(self, sizes: list[int]) -> None:
        self.fds: list[int] = []
        self.lengths: list[int] = []  # bytes of each file
        self.places: list[list[list[int]]] = [self._lay(n) for n in sizes]

    def _lay(self, size: int) -> list[list[int]]:
        pieces: list[list[int]] = []
        at = 0
        while at < size or not pieces:
            if not self.lengths or self.lengths[-1] == FILE_BYTES:
                if len(self.lengths) == MAX_FILES:
                    raise WireError(f"a body of more than {MAX_FILES} files")
                self.lengths.append(0)
            n = min(FILE_BYTES - self.lengths[-1], size - at)
            pieces.append([len(self.lengths) - 1, self.lengths[-1], n])
            self.lengths[-1] += n
            at += n
        return pieces

    def fill(self, body: bytes, raws: list[torch.Tensor]) -> None:
        """Create, fill and seal the files: `body` and `raws` (uint8 views of whole storages,
        on any device) in the order of the sizes given. Bytes in host memory are written
        (pwrite); a device's go through this process's pinned staging buffer in chunks
        (_write_staged), or where it has none, are copied straight into a mapping of the
        file."""
        maps: dict[int, mmap.mmap] = {}
        try:
            for length in self.lengths:
                fd = os.memfd_create("kgb-wire", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
                self.fds.append(fd)
                # Pages allocated in one call and mapped up front (MAP_POPULATE below), not
                # one fault per 4 KiB page inside the device copy: 1 GiB from an H100 in
                # 827 ms, 1053 ms so (bench/results/h100-2026-12-07c/wire.txt).
                if length:
                    os.posix_fallocate(fd, 0, length)
            self._write(0, memoryview(body), self.places[0])
            for raw, pieces in zip(raws, self.places[1:]):
                if raw.device.type == "cpu":
                    # ndarray.data is memoryview(ndarray); numpy's stubs type the buffer
                    # protocol of an ndarray only from Python 3.12 on.
                    self._write(0, raw.numpy().data.cast("B"), pieces)
                    continue
                stage = _staging()
                at = 0
                for i, off, n in pieces:
                    if n and stage is not None:
                        _write_staged(self.fds[i], off, raw[at:at + n], stage)
                    elif n:
                        if i not in maps:
                            maps[i] = mmap.mmap(self.fds[i], self.lengths[i],
                                                mmap.MAP_SHARED | mmap.MAP_POPULATE)
                        dst = torch.frombuffer(maps[i], dtype=torch.uint8, count=n, offset=off)
                        dst.copy_(raw[at:at + n])
                        del dst  # the mapping closes only once no tensor sees it
                    at += n
        finally:
            for m in maps.values():
                m.close()
        for fd in self.fds:
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS | fcntl.F_SEAL_SEAL)

    def _write(self, at: int, view: memoryview, pieces: list[list[int]]) -> None:
        for i, off, n in pieces:
            done = 0
            while done < n:
                done += os.pwrite(self.fds[i], view[at + done:at + n], off + done)
            at += n

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


# A device's bytes cross to a memfd fastest through pinned host memory: on an H100, 1 GiB took
# 597 ms through a pinned buffer allocated for it and then pwrite, against 827 ms copied
# straight into the file's mapping (bench/results/h100-2026-12-07c/wire.txt, `staged`
# against `populate`). One buffer of _STAGE_BYTES per process, made at its first device body
# and kept, so that no message pays the pinned allocation (bench/wire-gpu.py `reused`
# measures this way).
_STAGE_BYTES = 32 << 20
_stage: list[torch.Tensor | None] = []  # [] not tried yet; [None] pinned memory refused


def _staging() -> torch.Tensor | None:
    """This process's pinned staging buffer, or None where pinned memory is refused."""
    if not _stage:
        try:
            _stage.append(torch.empty(_STAGE_BYTES, dtype=torch.uint8, pin_memory=True))
        except RuntimeError:
            _stage.append(None)
    return _stage[0]


def _write_staged(fd: int, at: int, src: torch.Tensor, stage: torch.Tensor) -> None:
    """src's bytes (uint8, one dimension, any device) into the file at `at`, through `stage`
    (host memory) one chunk of stage's size at a time."""
    n, done = src.numel(), 0
    while done < n:
        k = min(stage.numel(), n - done)
        chunk = stage[:k]
        chunk.copy_(src[done:done + k])
        view = chunk.numpy().data.cast("B")
        w = 0
        while w < k:
            w += os.pwrite(fd, view[w:], at + done + w)
        done += k


def _mapped(fd: int, size: int) -> mmap.mmap | None:
    """A private, writable mapping of a body's sealed memfd (writes stay in this process), or
    None for an empty one; WireError for a file that is not sealed against change."""
    try:
        sealed = fcntl.fcntl(fd, fcntl.F_GET_SEALS) & SEALS == SEALS
    except OSError:
        sealed = False
    if not sealed:
        raise WireError("a body file that is not a sealed memfd")
    if not size:
        return None
    # Not MAP_POPULATE: on a private writable mapping it copies every page up front (1 GiB
    # onto an H100 took 680 ms so, 227 ms without: bench/results/h100-2026-12-07c/wire.txt).
    return mmap.mmap(fd, size, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_WRITE)


class Channel:
    """One end of the judge-runner socket. send() writes a header and, with a body, the memfd
    that carries it; recv() returns (header, Body or None), the body copied onto `device`
    (storages marked "cpu" stay on the CPU) and capped at `cap` bytes."""

    def __init__(self, sock: socket.socket, device: torch.device) -> None:
        self.sock, self.device = sock, device

    @classmethod
    def from_fd(cls, fd: int, device: torch.device) -> "Channel":
        return cls(socket.socket(fileno=fd), device)

    def send(self, header: dict[str, Any], doc: Any = None,
             storages: Storages | None = None) -> None:
        if doc is None and storages is None:
            self.sock.sendmsg([json.dumps(header).encode()])
            return
        body = json.dumps(doc, allow_nan=False).encode()
        raws = storages.tensors if storages else []
        files = _Files([len(body)] + [raw.numel() for raw in raws])
        try:
            files.fill(body, raws)
            header = dict(header, body=len(body), storages=files.places[1:])
            socket.send_fds(self.sock, [json.dumps(header).encode()], files.fds)
        finally:
            files.close()

    def recv(self, cap: int = 1 << 62) -> tuple[dict[str, Any], Body | None]:
        msg, fds, flags, _ = socket.recv_fds(self.sock, MAX_HEADER, MAX_FILES)
        try:
            if not msg:
                raise EOFError("the other end closed the channel")
            if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                raise WireError("header too long, or too many files")
            try:
                header = json.loads(msg)
            except ValueError:
                raise WireError("malformed header") from None
            if not isinstance(header, dict):
                raise WireError("malformed header")
            if not fds:
                return header, None
            return header, self._body(header, fds, cap)
        finally:
            for fd in fds:
                os.close(fd)

    def _body(self, header: dict[str, Any], fds: list[int], cap: int) -> Body:
        blen, places = header.get("body"), header.get("storages")
        if not (isinstance(blen, int) and 0 <= blen <= min(MAX_BODY_JSON, FILE_BYTES)
                and isinstance(places, list) and len(places) <= MAX_ITEMS):
            raise WireError("malformed body header")
        total = blen
        sizes = [os.fstat(fd).st_size for fd in fds]
        for p in places:
            if not (isinstance(p, list) and len(p) <= MAX_FILES * 4 and all(
                    isinstance(c, list) and len(c) == 3
                    and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                            for x in c)
                    and c[0] < len(fds) and c[1] + c[2] <= sizes[c[0]] for c in p)):
                raise WireError("malformed storage place")
            total += sum(c[2] for c in p)
        if total > cap:
            raise WireError(f"body of {total} bytes (cap {cap})")
        maps = [_mapped(fd, size) for fd, size in zip(fds, sizes)]
        raw = maps[0][:blen] if maps[0] is not None else b""
        if len(raw) != blen:
            raise WireError("body shorter than announced")
        try:
            doc = json.loads(raw)
        except ValueError:
            raise WireError("malformed body") from None
        storages = []
        for p in places:
            views = [torch.frombuffer(maps[i], dtype=torch.uint8,
                                      count=n, offset=off)
                     for i, off, n in p if n]
            if len(views) == 1:
                storages.append(views[0])  # the mapping itself: no copy on this side
            else:
                storages.append(torch.cat(views) if views else torch.empty(0, dtype=torch.uint8))
        return Body(doc, storages)

    def decoder(self, body: Body) -> _Decoder:
        return _Decoder(body.storages, self.device)

    def close(self) -> None:
        self.sock.close()
