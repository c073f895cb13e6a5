"""L3's traced call sends no output back: the runner answers runtime.compare.did_nothing itself
(runtime.runner Runner._did_nothing) and the judge reads it from the header (Remote.trace).
The profiler is a stand-in here (the trace needs a GPU); the inputs travel in a body, as a
call's inputs do when they are not the case's recipe, so on the CPU the runner's arguments
are views of the body's mapping, which an in-place candidate writes through."""

import socket
import threading
from types import SimpleNamespace
from typing import Any

import pytest
import torch

import runtime.runner as runner_mod
from runtime.inputs import BuiltArg
from runtime.remote import Remote
from runtime.wire import Channel


def _returns_input(x: torch.Tensor) -> torch.Tensor:
    return x


def _adds_one(x: torch.Tensor) -> torch.Tensor:
    return x + 1


def _adds_one_in_place(x: torch.Tensor) -> None:
    x.add_(1)


def _returns_a_copy(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


def _trace(monkeypatch: pytest.MonkeyPatch, fn: Any, mutates: tuple[str, ...] = ()
           ) -> tuple[dict[str, Any], bool]:
    """The judge's header of one traced call of `fn`, and whether any body came with it."""
    monkeypatch.setattr(runner_mod, "traced", lambda f: (f(), [], set(), 0.0))
    judge_sock, runner_sock = socket.socketpair()
    cpu = torch.device("cpu")
    runner = runner_mod.Runner(Channel(runner_sock, cpu))
    runner.module = SimpleNamespace(entry=fn)

    def serve() -> None:
        req, body = runner.chan.recv()
        runner.call(req, body)

    t = threading.Thread(target=serve)
    t.start()
    remote = Remote(Channel(judge_sock, cpu))
    args = (BuiltArg("x", torch.arange(6, dtype=torch.float32)),)
    head = remote.trace("entry", args, mutates)
    sent_body = "body" in head
    t.join()
    judge_sock.close()
    runner_sock.close()
    assert torch.equal(args[0].value, torch.arange(6, dtype=torch.float32))  # judge's own
    return head, sent_body


def test_an_output_that_is_its_input_did_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    head, body = _trace(monkeypatch, _returns_input)
    assert head["ok"] is True and head["did_nothing"] is True and not body
    assert head["kernels"] == [] and "out" not in head


def test_a_computed_output_did_something(monkeypatch: pytest.MonkeyPatch) -> None:
    head, body = _trace(monkeypatch, _adds_one)
    assert head["did_nothing"] is False and not body


def test_a_copy_of_the_input_is_not_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh tensor equal to the input was made by something: L3 must judge it."""
    head, _ = _trace(monkeypatch, _returns_a_copy)
    assert head["did_nothing"] is False


def test_a_mutated_argument_is_judged_against_its_kept_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-place candidate writes through the body's mapping: built again from the body,
    the 'pristine' inputs would hold its result and the call would look like nothing."""
    head, _ = _trace(monkeypatch, _adds_one_in_place, mutates=("x",))
    assert head["did_nothing"] is False
