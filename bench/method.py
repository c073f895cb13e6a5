"""Reads the store of bench/gpu-method.sh and judges the timing method on a known answer.

Prints, per timed case of aten/clone, the shipped and the planted (twice the work) candidate's
time, their ratio, and the shipped one's achieved bandwidth and fraction of the measured copy
ceiling; then the verdicts at the largest timed case: ratio within 2 +- 5%, fraction >= 0.90.
Exit status 0 when both hold, 1 when one does not, 2 when the store lacks the data.
Only the standard library: it runs wherever the store is.
"""

import json
import sqlite3
import sys

RATIO, RATIO_TOL, SOL_MIN = 2.0, 0.05, 0.90


def timed_cases(db: sqlite3.Connection, sample: str) -> dict[tuple[str, int], dict]:
    rows = db.execute(
        "SELECT c.entry, c.case_id, c.detail, c.axes FROM cases c JOIN evaluations e"
        " ON c.eval_key = e.key WHERE e.task = 'clone' AND e.sample = ? AND c.timed = 1"
        " ORDER BY c.case_id", (sample,))
    out = {}
    for entry, case_id, detail, axes in rows:
        res = json.loads(detail) if detail else {}
        if res.get("time_cand_ms"):
            out[(entry, case_id)] = dict(res, axes=axes)
    return out


def main() -> int:
    db = sqlite3.connect(sys.argv[1])
    shipped, twice = timed_cases(db, "shipped"), timed_cases(db, "twice")
    both = sorted(set(shipped) & set(twice), key=lambda k: k[1])
    if not both:
        print("no timed case of aten/clone with both candidates in the store")
        return 2
    print(f"{'case':>5} {'entry':<10} {'shipped ms':>10} {'twice ms':>10} {'ratio':>6} "
          f"{'GB/s':>7} {'of ceiling':>10} {'rounds':>6}  axes")
    for key in both:
        s, t = shipped[key], twice[key]
        print(f"{key[1]:>5} {key[0]:<10} {s['time_cand_ms']:>10.4f} {t['time_cand_ms']:>10.4f} "
              f"{t['time_cand_ms'] / s['time_cand_ms']:>6.3f} {s.get('achieved_gbps', 0):>7.0f} "
              f"{s.get('sol_fraction', float('nan')):>10.3f} {s.get('rounds', '-')!s:>6}  "
              f"{s['axes']}")
    # The largest shape: the one the shipped candidate takes longest on.
    big = max(both, key=lambda k: shipped[k]["time_cand_ms"])
    ratio = twice[big]["time_cand_ms"] / shipped[big]["time_cand_ms"]
    sol = shipped[big].get("sol_fraction")
    ok_ratio = abs(ratio / RATIO - 1) <= RATIO_TOL
    ok_sol = sol is not None and sol >= SOL_MIN
    print(f"largest timed case {big[1]}: planted/shipped = {ratio:.3f} (want {RATIO} +- "
          f"{RATIO_TOL:.0%}): {'ok' if ok_ratio else 'MISS'}; shipped at {sol} of the copy "
          f"ceiling (want >= {SOL_MIN}): {'ok' if ok_sol else 'MISS'}")
    return 0 if ok_ratio and ok_sol else 1


if __name__ == "__main__":
    sys.exit(main())
