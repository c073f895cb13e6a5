"""bench/throughput.py's harness-overhead and hand-over lines over small stores (the rest of the
script only sums columns)."""

import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_throughput():
    spec = importlib.util.spec_from_file_location("throughput", ROOT / "bench" / "throughput.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_overhead_per_candidate(capsys: pytest.CaptureFixture[str]) -> None:
    tp = load_throughput()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE cases(eval_key TEXT, case_id INTEGER, timed INTEGER, detail TEXT)")

    def case(key: str, cid: int, timed: int, **detail: object) -> None:
        db.execute("INSERT INTO cases VALUES (?, ?, ?, ?)", (key, cid, timed, json.dumps(detail)))
    # candidate a: two timed cases; b: one; an untimed case and a timed one without a time
    # (its method could not time it) count for nothing.
    case("a", 0, 1, ms=3000, phase_ms={"wait": 1000}, compile_ms=200, time_cand_ms=1.0,
         time_base_ms=2.0, rounds=29)  # own calls: (1 + 10 + 29 + 10) x 1 ms = 50 ms
    # and the baseline's: (1 + 10 + 29) x 2 ms = 80 ms
    case("a", 1, 1, ms=1000, phase_ms={"wait": 0}, compile_ms=0, time_cand_ms=2.0, rounds=9)
    # b's record counts its calls (since 2026-12-04): own 20 x 0.5 ms, the baseline's 16 x 1 ms
    case("b", 0, 1, ms=500, phase_ms={"wait": 100}, compile_ms=100, time_cand_ms=0.5,
         time_base_ms=1.0, rounds=49, cand_calls=20, base_calls=16)
    case("b", 1, 0, ms=9999, compile_ms=9999)
    case("b", 2, 1, ms=9999, phase_ms={"wait": 0}, compile_ms=9999)
    tp.overhead(db)
    out = capsys.readouterr().out
    # a: 3000 work, 200 compile, 50 + 60 own, 80 baseline; b: 400 work, 100 compile, 10 own,
    # 16 baseline; means of the two
    # and the distribution of the harness: a 2.69 s, b 0.29 s (no evaluations table here:
    # the largest is named by its key)
    assert out.strip().split("\n") == [
        "timing pass, per timed candidate (2): 1.70 s of worker time besides waiting for the "
        "lock = own compile 0.15 s + own calls 0.060 s (estimated) + harness 1.49 s (of which "
        "the baseline's calls 0.048 s)",
        "harness per timed candidate: median 1.49 s, 90th percentile 2.45 s, largest 2.69 s "
        "(a); 1 of 2 under 1 s"]
    empty = sqlite3.connect(":memory:")
    empty.execute("CREATE TABLE cases(eval_key TEXT, case_id INTEGER, timed INTEGER, detail TEXT)")
    tp.overhead(empty)
    assert capsys.readouterr().out == ""


def test_handovers_between_exclusive_sections(capsys: pytest.CaptureFixture[str]) -> None:
    tp = load_throughput()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE evaluations(key TEXT, task TEXT)")
    db.execute("CREATE TABLE cases(eval_key TEXT, case_id INTEGER, timed INTEGER, detail TEXT)")
    db.executemany("INSERT INTO evaluations VALUES (?, ?)", [("ka", "a"), ("kb", "b")])
    # a's two sections and b's one, stored out of order; b's began 1.5 s after a's first ended,
    # a's second as b's ended; an untimed case and a timed one without a span count for nothing.
    for key, cid, timed, span in (("ka", 1, 1, [14.0, 15.0]), ("ka", 0, 1, [10.0, 11.0]),
                                  ("kb", 0, 1, [12.5, 14.0]), ("kb", 1, 0, [0.0, 99.0]),
                                  ("kb", 2, 1, None)):
        detail = {"gpu_exclusive": span} if span else {}
        db.execute("INSERT INTO cases VALUES (?, ?, ?, ?)", (key, cid, timed, json.dumps(detail)))
    tp.handovers(db, stalls=2)
    assert capsys.readouterr().out.strip() == (
        "timing pass: 3 exclusive sections, 3.5 s of 5.0 s from the first to the last; between "
        "them 1.5 s, longest 1.5 s before b case 0, 0.0 s before a case 1")
    db.execute("DELETE FROM cases WHERE eval_key = 'kb'")
    db.execute("DELETE FROM cases WHERE case_id = 1")
    tp.handovers(db)  # one section: nothing between sections to tell
    assert capsys.readouterr().out == ""


def test_task_of_names_the_evaluation_or_falls_back_to_the_key() -> None:
    tp = load_throughput()
    db = sqlite3.connect(":memory:")
    assert tp.task_of(db, "0123456789abcdef") == "0123456789ab"  # no evaluations table
    db.execute("CREATE TABLE evaluations(key TEXT, source TEXT, task TEXT)")
    db.execute("INSERT INTO evaluations VALUES ('k1', 'aten', 'polygamma')")
    assert tp.task_of(db, "k1") == "aten/polygamma"
    assert tp.task_of(db, "k2") == "k2"
