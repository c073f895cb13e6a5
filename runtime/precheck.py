"""The static precheck of `kgb serve`: a submission's verdict before it may take a queue slot.

`python -m runtime.precheck FILE [ALLOW_JSON]` reads the candidate FILE and judges its source
as the judge does before it lets a runner import a candidate (runtime.source.judge_source: UTF-8,
no NUL byte, the anti-hack scan L1 with the task's extra allowances, a JSON list). It prints one
JSON object: {"verdict": null} when the candidate may be queued, or the judge's verdict
(hack, syntax_error or import_error) with the same detail and, for hack, the findings. Nothing
of the candidate is imported or run, and neither torch nor triton is imported, so it answers
in tens of milliseconds; kgb runs it in a process of its own, never in the server.

`python -m runtime.precheck --serve` is that process resident (src/precheck.c): one request per
line on stdin, {"file": PATH, "allow": [...]}, one answer per line on stdout, until EOF.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from runtime.source import judge_source

__all__ = ["check", "main"]

_FINDINGS_CAP = 20  # as the judge's fatal line (runtime.candidate)


def check(raw: bytes, path: str, allow: frozenset[str]) -> dict[str, Any]:
    """The verdict of the judge's load stage for candidate bytes `raw` (named `path`)."""
    found = judge_source(raw, path, allow)
    res: dict[str, Any] = {"verdict": found.verdict if found else None}  # None: may load
    if found is None:
        return res
    res["detail"] = found.detail
    if found.findings:
        res.update(layer="L1", findings=[{"line": f.line, "rule": f.rule, "message": f.message}
                                         for f in found.findings[:_FINDINGS_CAP]])
    return res


def _answer(line: bytes) -> dict[str, Any]:
    req = json.loads(line)
    path, allow = req.get("file"), req.get("allow", [])
    if not (isinstance(path, str) and isinstance(allow, list)
            and all(isinstance(a, str) for a in allow)):
        raise ValueError("expected {\"file\": PATH, \"allow\": [NAME...]}")
    with open(path, "rb") as f:
        raw = f.read()
    return check(raw, path, frozenset(allow))


def serve() -> int:
    for line in sys.stdin.buffer:
        try:
            res = _answer(line)
        except (OSError, ValueError) as e:  # kgb's request, not the candidate: kgb says so
            res = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["--serve"]:
        return serve()
    if len(argv) not in (2, 3):
        print("usage: python -m runtime.precheck FILE [ALLOW_JSON]", file=sys.stderr)
        return 2
    allow = json.loads(argv[2]) if len(argv) == 3 else []
    if not isinstance(allow, list) or not all(isinstance(a, str) for a in allow):
        print("precheck: ALLOW_JSON: expected a list of strings", file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        raw = f.read()
    print(json.dumps(check(raw, argv[1], frozenset(allow))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
