#!/usr/bin/env python3
"""Where a checking job's time went: the phase split of every checked candidate in a store.

    python3 bench/phases.py STORE.db

Reads the `checks` table (the checking phase's results held for the timing phase, and kept
after it) and prints, per job and summed over the store, seconds in each phase the judge
marks (runtime.clocks: wait, inputs, call, reference, check) plus Triton compile time inside
them, and the same for the traced cases alone (those with an L3 device trace: the large,
timed cases and the first passing case of each entry). Stdlib only: runs anywhere.
"""

from __future__ import annotations

import collections
import json
import sqlite3
import sys


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    db = sqlite3.connect(f"file:{argv[1]}?mode=ro", uri=True)
    total: collections.Counter[str] = collections.Counter()
    traced: collections.Counter[str] = collections.Counter()
    rows = []
    for key, text in db.execute("SELECT key, result FROM checks"):
        res = json.loads(text)
        job: collections.Counter[str] = collections.Counter()
        for case in res.get("cases", []):
            if case.get("type") != "case":
                continue
            split = collections.Counter(case.get("phase_ms") or {})
            split["compile"] += case.get("compile_ms") or 0.0
            split["cases"] += 1
            job.update(split)
            if case.get("trace_kernel_us") is not None:
                traced.update(split)
        job["wall"] = res.get("wall_ms") or 0.0
        total.update(job)
        rows.append((key[:12], job))
    names = ["wall", "wait", "inputs", "call", "reference", "check", "compile"]
    print("job".ljust(13) + "cases".rjust(6) + "".join(n.rjust(10) for n in names))

    def line(label: str, c: collections.Counter[str]) -> str:
        return (label.ljust(13) + str(int(c["cases"])).rjust(6)
                + "".join(f"{c[n] / 1e3:10.1f}" for n in names))
    for label, job in sorted(rows, key=lambda r: -r[1]["wall"]):
        print(line(label, job))
    print(line("all", total))
    print(line("traced cases", traced) + "   (wall: the jobs', not these cases')")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
