#!/usr/bin/env python3
"""Summarise bench/pysample/sitecustomize.py's samples: per process role, the functions with
the most samples inclusive (on the stack) and exclusive (at the top), in seconds.

    python3 bench/pysample/report.py DIR [TOP] [PERIOD_MS]

Idle waiting (a thread blocked in a read or a select) counts as samples too: the main
thread's stack says where a worker waits as well as where it works. Stdlib only.
"""

from __future__ import annotations

import collections
import os
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    top = int(argv[2]) if len(argv) > 2 else 25
    period_s = float(argv[3]) / 1e3 if len(argv) > 3 else 0.005
    incl: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    excl: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    total: collections.Counter[str] = collections.Counter()
    procs: collections.Counter[str] = collections.Counter()
    cpu_s: collections.Counter[str] = collections.Counter()
    for name in sorted(os.listdir(argv[1])):
        if not name.endswith(".folded"):
            continue
        role = name.rsplit("-", 1)[0]
        procs[role] += 1
        with open(os.path.join(argv[1], name)) as fh:
            for line in fh:
                if line.startswith("#cpu "):
                    user, system, tck = (int(x) for x in line.split()[1:])
                    cpu_s[role] += (user + system) / tck
                    continue
                stack, _, n = line.rstrip("\n").rpartition(" ")
                frames = stack.split(";")
                total[role] += int(n)
                excl[role][frames[-1]] += int(n)
                for f in set(frames):
                    incl[role][f] += int(n)
    for role in sorted(total):
        print(f"== {role}: {procs[role]} processes, {total[role] * period_s:.1f} s sampled, "
              f"{cpu_s[role]:.1f} s of CPU")
        for title, counts in (("inclusive", incl[role]), ("exclusive", excl[role])):
            print(f"-- {title}")
            for f, n in counts.most_common(top):
                print(f"{n * period_s:9.2f} s  {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
