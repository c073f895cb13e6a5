"""Judges a `kgb eval --json` run of tests/gpu-faults/scale against each file's first line.

usage: python3 tests/gpu-faults/check.py RESULTS.jsonl tests/gpu-faults/scale [PLATFORM]
Each candidate file starts with `# expect: VERDICTS [WORDS...]`: VERDICTS is one or more
verdicts separated by `|`, WORDS (optional) must appear in the candidate's detail (any case).
That is the GPU's expectation; a later line `# expect-PLATFORM: ...` replaces it on PLATFORM
(the interpreter faults differently: a wild store is a segfault of the worker there). Prints
one line per candidate and exits 1 if any differs, 2 if a candidate has no record.
"""

import json
import pathlib
import sys


def main() -> int:
    recs = {r.get("sample"): r for r in map(json.loads, open(sys.argv[1])) if "sample" in r}
    status = 0
    for path in sorted(pathlib.Path(sys.argv[2]).glob("*.py")):
        lines = path.read_text().splitlines()
        head = lines[0]
        if len(sys.argv) > 3:
            head = next((ln.replace(f"# expect-{sys.argv[3]}:", "# expect:") for ln in lines
                         if ln.startswith(f"# expect-{sys.argv[3]}:")), head)
        verdicts, *words = head.removeprefix("# expect:").split(maxsplit=1)
        want = verdicts.split("|")
        r = recs.get(path.stem)
        if r is None:
            print(f"{path.stem}: no record")
            status = max(status, 2)
            continue
        detail = r.get("detail") or ""
        ok = r["verdict"] in want and all(w.lower() in detail.lower() for w in words)
        print(f"{'ok  ' if ok else 'FAIL'} {path.stem}: {r['verdict']} (want {verdicts}"
              f"{' with ' + repr(words[0]) if words else ''}): {detail[:200]}")
        if not ok:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
