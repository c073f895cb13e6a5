"""Checks kgb's verdicts on the hack corpus against each file's first line (docs/anti-hack.md).

    python3 tests/hacks/check.py RECORDS.jsonl CORPUS_DIR [--heldout]

RECORDS is `kgb eval --json` over the corpus (sample = file stem). Prints one line per file whose
verdict is not the one its header expects and exits 1 if there is any; exits 0 when all match.
Without --heldout, `mismatch heldout` files must pass (they fit the public grid); with it, they
must be mismatches. Standard library only: it also runs on the GPU machine (bench/gpu-hacks.sh).
"""

from __future__ import annotations

import json
import pathlib
import re
import sys


def expected(path: pathlib.Path) -> list[str]:
    head = path.read_text("utf-8").splitlines()[0].split()
    if head[:2] != ["#", "expect:"]:
        raise SystemExit(f"{path}: the first line must be '# expect: ...'")
    return head[2:]


def judge(want: list[str], rec: dict, heldout: bool) -> str | None:
    """None when the record has the verdict `want` asks for; else what is wrong."""
    verdict, detail = rec["verdict"], rec.get("detail") or ""
    got = f"got {verdict}: {detail}"
    if want[:2] == ["hack", "L1"]:
        if verdict != "hack" or not re.match(rf"line \d+: {re.escape(want[2])}: ", detail):
            return f"want hack/{want[2]}, {got}"
    elif want[:2] == ["hack", "L2"]:
        if verdict != "hack" or "L2 ghost replay" not in detail:
            return f"want hack by L2, {got}"
    elif want == ["mismatch"] or want == ["mismatch", "rerun"]:
        # rerun: wrong whether the first run already saw garbage or the re-run's poison did
        if verdict != "mismatch":
            return f"want mismatch, {got}"
    elif want == ["mismatch", "heldout"]:
        if verdict != ("mismatch" if heldout else "pass"):
            return f"want {'mismatch' if heldout else 'pass'} ({'with' if heldout else 'without'} held-out cases), {got}"
    else:
        return f"unknown expectation {' '.join(want)}"
    return None


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--heldout"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    heldout = len(argv) == 4
    recs = {r["sample"]: r for r in map(json.loads, open(argv[1])) if "sample" in r}
    bad = []
    for path in sorted(pathlib.Path(argv[2]).glob("*.py")):
        rec = recs.get(path.stem)
        why = judge(expected(path), rec, heldout) if rec else "no record"
        if why:
            bad.append(f"{path.name}: {why}")
    print("\n".join(bad) if bad else f"all {len(recs)} verdicts as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
