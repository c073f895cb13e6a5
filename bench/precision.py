"""Timing precision (issue 5, benchmark 2): the same candidates measured in two runs.

usage: python3 bench/precision.py A.db B.db
Compares, task by task, the speedup of each candidate that passed with a speedup in both stores
(the candidate's geomean over its timed cases), and case by case the per-case speedups. Prints
the relative difference |B/A - 1|: its median and 90th percentile, per task and per case, and
the tasks where it exceeds 5%. Targets (issue 5): median <= 2%, 90th percentile <= 5%.
Exit status 0 when both targets hold on the per-task differences, 1 when not, 2 without data.
Only the standard library: it runs wherever the stores are.
"""

import sqlite3
import statistics
import sys


def speedups(path: str) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str, int], float]]:
    db = sqlite3.connect(path)
    tasks = {(src, task): sp for src, task, sp in db.execute(
        "SELECT source, task, speedup FROM evaluations WHERE verdict = 'pass'"
        " AND speedup IS NOT NULL AND speedup > 0")}
    cases = {(src, task, cid): sp for src, task, cid, sp in db.execute(
        "SELECT e.source, e.task, c.case_id, c.speedup FROM cases c JOIN evaluations e"
        " ON c.eval_key = e.key WHERE e.verdict = 'pass' AND c.speedup > 0")}
    return tasks, cases


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    i = q * (len(xs) - 1)
    lo = int(i)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (i - lo)


def main() -> int:
    (ta, ca), (tb, cb) = speedups(sys.argv[1]), speedups(sys.argv[2])
    common = sorted(set(ta) & set(tb))
    if not common:
        print("no task with a speedup in both stores")
        return 2
    diffs = {k: abs(tb[k] / ta[k] - 1) for k in common}
    cdiffs = [abs(cb[k] / ca[k] - 1) for k in set(ca) & set(cb)]
    med, p90 = statistics.median(diffs.values()), quantile(list(diffs.values()), 0.9)
    print(f"{len(common)} tasks with a speedup in both runs, {len(cdiffs)} timed cases")
    print(f"per task: median |B/A - 1| = {med:.2%}, 90th percentile {p90:.2%} "
          f"(targets 2%, 5%)")
    if cdiffs:
        print(f"per case: median {statistics.median(cdiffs):.2%}, 90th percentile "
              f"{quantile(cdiffs, 0.9):.2%}")
    for k in sorted(common, key=lambda k: -diffs[k]):
        if diffs[k] > 0.05:
            print(f"  {k[0]}/{k[1]}: {ta[k]:.3f}x then {tb[k]:.3f}x ({diffs[k]:+.1%})")
    return 0 if med <= 0.02 and p90 <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
