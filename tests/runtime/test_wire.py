"""The judge-runner channel's bodies (runtime.wire): values round-trip through sealed memfds,
and a body whose files could still change is refused."""

from __future__ import annotations

import fcntl
import json
import os
import socket

import pytest
import torch

from runtime import wire
from runtime.wire import Channel, Storages, WireError, encode_value


def _pair() -> tuple[Channel, Channel]:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    cpu = torch.device("cpu")
    return Channel(a, cpu), Channel(b, cpu)


def _roundtrip(value: object) -> object:
    tx, rx = _pair()
    st = Storages()
    doc = encode_value(value, st)
    tx.send({"op": "v"}, doc, st)
    header, body = rx.recv()
    assert header["op"] == "v" and body is not None
    return rx.decoder(body).value(body.doc)


def test_values_round_trip_with_shared_storage_and_empty_tensors() -> None:
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    got = _roundtrip([base, base[:, 1], torch.empty(0, dtype=torch.int64)])
    assert isinstance(got, list)
    a, view, empty = got
    assert torch.equal(a, base) and torch.equal(view, base[:, 1]) and empty.numel() == 0
    a[0, 1] = -1.0  # one storage on the receiving side too: the view sees the write
    assert view[0].item() == -1.0


def test_storage_split_across_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "FILE_BYTES", 4096)
    t = torch.randn(5000, dtype=torch.float64)  # 40000 bytes: ten files
    got = _roundtrip(t)
    assert isinstance(got, torch.Tensor) and torch.equal(got, t)


def test_sent_files_are_sealed_against_change() -> None:
    files = wire._Files([4, 64])
    files.fill(b"null", [torch.zeros(64, dtype=torch.uint8)])
    try:
        fd = files.fds[0]
        assert fcntl.fcntl(fd, fcntl.F_GET_SEALS) & wire.SEALS == wire.SEALS
        with pytest.raises(PermissionError):
            os.ftruncate(fd, 0)  # a shrink would fault the receiver's reads
        with pytest.raises(PermissionError):
            os.pwrite(fd, b"x", 0)
    finally:
        files.close()


def test_receiver_writes_stay_private() -> None:
    got = _roundtrip(torch.ones(16))
    assert isinstance(got, torch.Tensor)
    got.zero_()  # a private mapping: the sender's file (and any other reader) is unchanged
    assert got.sum().item() == 0.0


def _send_raw(sock: socket.socket, body: bytes, sealed: bool) -> None:
    fd = os.memfd_create("t", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, body)
    if sealed:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, wire.SEALS)
    header = {"op": "v", "body": len(body), "storages": []}
    socket.send_fds(sock, [json.dumps(header).encode()], [fd])
    os.close(fd)


def test_unsealed_body_is_refused() -> None:
    """A runner that keeps its body writable could change it while the judge reads, or shrink
    it under the judge's mapping (SIGBUS): refused before it is mapped."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    rx = Channel(b, torch.device("cpu"))
    _send_raw(a, b"null", sealed=False)
    with pytest.raises(WireError, match="sealed"):
        rx.recv()
    _send_raw(a, b"null", sealed=True)
    header, body = rx.recv()
    assert body is not None and body.doc is None


def test_regular_file_is_refused(tmp_path: "os.PathLike[str]") -> None:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    rx = Channel(b, torch.device("cpu"))
    path = os.path.join(tmp_path, "body")
    with open(path, "wb") as f:
        f.write(b"null")
    fd = os.open(path, os.O_RDONLY)
    header = {"op": "v", "body": 4, "storages": []}
    socket.send_fds(a, [json.dumps(header).encode()], [fd])
    os.close(fd)
    with pytest.raises(WireError, match="sealed"):
        rx.recv()


def test_staged_write_crosses_chunk_edges() -> None:
    """runtime.wire._write_staged (a device's bytes through the pinned staging buffer; here a
    host tensor and a 7-byte stage): every byte lands at its offset, chunk edges included."""
    src = torch.arange(100, dtype=torch.uint8) * 3
    fd = os.memfd_create("t", 0)
    try:
        os.ftruncate(fd, 130)
        wire._write_staged(fd, 30, src[1:], torch.empty(7, dtype=torch.uint8))
        got = os.pread(fd, 130, 0)
    finally:
        os.close(fd)
    assert got[:30] == bytes(30) and got[30:129] == bytes(src[1:].tolist()) and got[129] == 0
