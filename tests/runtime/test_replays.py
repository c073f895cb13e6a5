"""runtime.replays: when the judge asks the replay runner to load (Replays.start_replay, sent
before the first case on a GPU) and that the answer is read once, at the first replay."""

from types import SimpleNamespace
from typing import Any

from runtime.replays import Replays


class FakeRemote:
    def __init__(self, fatal: dict[str, Any] | None = None) -> None:
        self.calls: list[str] = []
        self.fatal = fatal

    def load_send(self, candidate: str, platform: str, entries: list[str],
                  traces: bool, library: dict[str, Any] | None = None) -> None:
        self.calls.append(f"send {candidate} {platform} {','.join(entries)} {traces}")

    def load_reply(self) -> dict[str, Any] | None:
        self.calls.append("reply")
        return self.fatal


def replays(remote: FakeRemote | None) -> Replays:
    r = Replays.__new__(Replays)
    r.replay = remote  # type: ignore[assignment]
    r.replay_sent = False
    r.replay_loaded = False
    r.job = SimpleNamespace(candidate="/c.py", platform="cuda",  # type: ignore[assignment]
                            entries=[SimpleNamespace(name="add")], library=None)
    return r


CASE = SimpleNamespace(id=3)


def test_load_sent_early_is_answered_at_the_first_replay_only() -> None:
    fake = FakeRemote()
    r = replays(fake)
    r.start_replay()
    r.start_replay()  # a second start sends nothing more
    assert fake.calls == ["send /c.py cuda add False"]
    assert r._replay_runner(CASE) == (fake, None)  # type: ignore[arg-type]
    assert r._replay_runner(CASE) == (fake, None)  # type: ignore[arg-type]
    assert fake.calls == ["send /c.py cuda add False", "reply"]


def test_without_an_early_start_the_first_replay_sends_and_reads() -> None:
    fake = FakeRemote()
    r = replays(fake)
    assert r._replay_runner(CASE) == (fake, None)  # type: ignore[arg-type]
    assert fake.calls == ["send /c.py cuda add False", "reply"]


def test_a_candidate_that_does_not_load_for_the_replay_fails_closed() -> None:
    r = replays(FakeRemote({"op": "fatal", "verdict": "import_error", "message": "boom"}))
    r.start_replay()
    remote, report = r._replay_runner(CASE)  # type: ignore[arg-type]
    assert remote is None and report is not None
    assert report.verdict == "hack" and "did not load in the replay's own process" in (
        report.message or "")


def test_no_replay_runner_no_request() -> None:
    r = replays(None)
    r.start_replay()
    assert r._replay_runner(CASE) == (None, None)  # type: ignore[arg-type]
