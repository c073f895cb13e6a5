"""Suite wall time split by phase (issue 5, benchmark 1), from `kgb -v eval` progress lines.

usage: python3 bench/throughput.py progress.txt [store.db]
bench/gpu-eval.sh writes progress.txt: one `kgb -v eval` per chunk of tasks, each with its
checking phase ("[i/n +Ts] task: checked ..." or a stored verdict) and then its timing phase
("[timed i/n +Ts] ..."), T counted from the chunk's start. Prints per chunk: tasks, the
checking phase's length and its last two finishers (the long poles), the timing phase's length
and seconds per timed candidate; with the store, the candidates' summed import time and the
cases' worker time by phase (waiting for the GPU lock, inputs, checks, timed rounds, the
event/wall cross-check) and inside Triton's compile, the timing pass's harness overhead per
candidate beyond its own compile and calls (mean, median and 90th percentile), and how much of
the timing pass some worker had the GPU alone.
Only the standard library.
"""

import json
import re
import sqlite3
import statistics
import sys

# (call and reference since 2026-12-04; earlier records have them inside check)
PHASES = ("wait", "inputs", "call", "reference", "check", "time", "gap")
LINE = re.compile(r"^\[(timed )?(\d+)/(\d+) \+(\d+)s\] (\S+) ")


def chunks(path: str) -> list[dict]:
    out: list[dict] = []
    cur: dict | None = None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        timed, i, n, t, task = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)
        # A chunk starts at its first checking line, or at a timed line when an earlier run
        # checked everything (a resumed run that only times).
        if cur is None or not timed and (cur["timing"] or i == 1 and cur["check"]):
            cur = {"check": [], "timing": [], "n": n}
            out.append(cur)
        (cur["timing"] if timed else cur["check"]).append((t, task))
    return out


def main() -> int:
    cs = chunks(sys.argv[1])
    if not cs:
        print("no progress lines")
        return 2
    for k, c in enumerate(cs, 1):
        check_end = max((t for t, _ in c["check"]), default=0)
        poles = ", ".join(f"{task} +{t}s" for t, task in sorted(c["check"])[-2:])
        line = f"chunk {k}: {len(c['check'])} tasks checked in {check_end} s (last: {poles})"
        if c["timing"]:
            end = max(t for t, _ in c["timing"])
            first = min(t for t, _ in c["timing"])
            n = len(c["timing"])
            # The first timed candidate's time counts from the end of checking.
            line += (f"; {n} timed in {end - check_end} s ({(end - check_end) / n:.1f} s each;"
                     f" first at +{first}s)")
        print(line)
    if len(sys.argv) > 2:
        db = sqlite3.connect(sys.argv[2])
        n, imp, wall = db.execute("SELECT COUNT(*), TOTAL(import_ms), TOTAL(wall_ms) "
                                  "FROM evaluations").fetchone()
        print(f"store: {n} evaluations, candidate import (module load) {imp / 1e3:.1f} s in all, "
              f"worker wall time {wall / 1e3:.0f} s in all (checking and timing jobs summed)")
        # Each case's record says where its worker time went (runtime/records.py phase_ms,
        # compile_ms). A timed case's record is its timing job's; the others' their check's.
        for timed, what in ((0, "checked-only cases"), (1, "timed cases (timing jobs)")):
            rows = db.execute(
                "SELECT COUNT(*), SUM(json_extract(detail, '$.ms')), "
                "SUM(json_extract(detail, '$.compile_ms')), "
                + ", ".join(f"SUM(json_extract(detail, '$.phase_ms.{k}'))" for k in PHASES)
                + " FROM cases WHERE timed = ?", (timed,)).fetchone()
            if not rows[0] or rows[1] is None:
                continue
            parts = ", ".join(f"{k} {(v or 0) / 1e3:.1f}" for k, v in zip(PHASES, rows[3:]))
            print(f"{what}: {rows[0]}, worker time {rows[1] / 1e3:.1f} s: {parts} s; "
                  f"inside Triton's compile {(rows[2] or 0) / 1e3:.1f} s")
        overhead(db)
        handovers(db)
    return 0


# The candidate's own calls in a timed case: its untimed call, the warm-up, the calibrated
# rounds and the event/wall cross-check's calls. Records since 2026-12-04 count them
# (cand_calls, base_calls); earlier ones ran 10 warm-up and 10 cross-check calls.
LEGACY_WARMUP_CALLS = 10
LEGACY_GAP_CALLS = 10


def overhead(db: sqlite3.Connection) -> None:
    """Issue 5's "harness overhead per candidate beyond its own compile and GPU time", for the
    timing pass: each timed case's worker time less its wait for the GPU lock, its compile and
    its own calls (their count times its median time, an estimate), summed per candidate; and
    how much of that is the baseline's calls (the other half of each speedup, estimated the
    same way: its untimed call, the warm-up and the rounds)."""
    per: dict[str, list[float]] = {}
    for key, ms, wait, comp, cand, base, rounds, cand_calls, base_calls in db.execute(
            "SELECT eval_key, json_extract(detail, '$.ms'), "
            "json_extract(detail, '$.phase_ms.wait'), json_extract(detail, '$.compile_ms'), "
            "json_extract(detail, '$.time_cand_ms'), json_extract(detail, '$.time_base_ms'), "
            "json_extract(detail, '$.rounds'), json_extract(detail, '$.cand_calls'), "
            "json_extract(detail, '$.base_calls') "
            "FROM cases WHERE timed = 1 AND json_extract(detail, '$.time_cand_ms') IS NOT NULL"):
        legacy = 1 + LEGACY_WARMUP_CALLS + (rounds or 0)
        own = (cand or 0) * (cand_calls if cand_calls is not None else legacy + LEGACY_GAP_CALLS)
        row = per.setdefault(key, [0.0, 0.0, 0.0, 0.0])
        row[0] += (ms or 0) - (wait or 0)
        row[1] += comp or 0
        row[2] += own
        row[3] += (base or 0) * (base_calls if base_calls is not None else legacy)
    if not per:
        return
    n = len(per)
    work, comp, own, base = (sum(r[i] for r in per.values()) / n / 1e3 for i in range(4))
    print(f"timing pass, per timed candidate ({n}): {work:.2f} s of worker time besides waiting "
          f"for the lock = own compile {comp:.2f} s + own calls {own:.3f} s (estimated) + "
          f"harness {work - comp - own:.2f} s (of which the baseline's calls {base:.3f} s)")
    # The mean above is pulled by a few candidates (many timed cases; torch compiling its own
    # jiterator kernels for the baseline): the distribution says how typical it is.
    harness = sorted(((r[0] - r[1] - r[2]) / 1e3, key) for key, r in per.items())
    values = [h for h, _ in harness]
    p90 = statistics.quantiles(values, n=10, method="inclusive")[-1] if n > 1 else values[0]
    print(f"harness per timed candidate: median {statistics.median(values):.2f} s, 90th "
          f"percentile {p90:.2f} s, largest {values[-1]:.2f} s ({task_of(db, harness[-1][1])}); "
          f"{sum(h < 1.0 for h in values)} of {n} under 1 s")


def task_of(db: sqlite3.Connection, key: str) -> str:
    """The task of an evaluation key, or the key's start where the store has no such row."""
    try:
        row = db.execute("SELECT source, task FROM evaluations WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        row = None
    return f"{row[0]}/{row[1]}" if row else key[:12]


def handovers(db: sqlite3.Connection, stalls: int = 3) -> None:
    """The timing pass's GPU from its timed cases' exclusive spans (runtime/records.py
    `gpu_exclusive`, time.monotonic() seconds of one machine): how long some worker had it
    alone, and how the rest of the pass went between two such spans, with the longest few
    (a stall: another worker's shared section that the next exclusive one waited for)."""
    spans = sorted((json.loads(g)[0], json.loads(g)[1], task, cid) for task, cid, g in db.execute(
        "SELECT e.task, c.case_id, json_extract(c.detail, '$.gpu_exclusive') FROM cases c "
        "JOIN evaluations e ON e.key = c.eval_key "
        "WHERE c.timed = 1 AND json_extract(c.detail, '$.gpu_exclusive') IS NOT NULL"))
    if len(spans) < 2:
        return
    alone = sum(b - a for a, b, _, _ in spans)
    gaps = sorted(((nxt[0] - cur[1], nxt[2], nxt[3]) for cur, nxt in zip(spans, spans[1:])),
                  reverse=True)
    top = ", ".join(f"{g:.1f} s before {task} case {cid}" for g, task, cid in gaps[:stalls])
    print(f"timing pass: {len(spans)} exclusive sections, {alone:.1f} s of "
          f"{spans[-1][1] - spans[0][0]:.1f} s from the first to the last; between them "
          f"{sum(g for g, _, _ in gaps):.1f} s, longest {top}")


if __name__ == "__main__":
    sys.exit(main())
