"""The static precheck of `kgb serve`: a submission's verdict before it may take a queue slot.

`python -m runtime.precheck FILE [ALLOW_JSON]` reads the candidate FILE and does what the judge
(runtime.worker) does before it lets a runner import a candidate: decode it as UTF-8, refuse a
NUL byte, and run the anti-hack scan L1 (runtime.guards.scan, with the task's extra allowances,
a JSON list). It prints one JSON object: {"verdict": null} when the candidate may be queued, or
the verdict the judge would give (hack, syntax_error or import_error) with the same detail and,
for hack, the findings. Nothing of the candidate is imported or run: the scan reads its syntax
tree. It imports neither torch nor triton, so it answers in tens of milliseconds; kgb runs it
in a process of its own, never in the server.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from runtime.guards import Finding, scan

__all__ = ["check", "main"]

# The judge's caps (runtime/worker.py): the same detail for the same candidate.
_MESSAGE_CAP_BYTES = 1024
_FINDINGS_CAP = 20


def _cap(text: str, limit: int = _MESSAGE_CAP_BYTES) -> str:
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    return raw[:limit - 3].decode("utf-8", "ignore") + "..."


def check(raw: bytes, path: str, allow: frozenset[str]) -> dict[str, Any]:
    """The verdict of the judge's load stage for candidate bytes `raw` (named `path`)."""
    name = os.path.basename(path)
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return {"verdict": "import_error", "detail": _cap(
            f"{name}: not UTF-8 text (invalid byte at offset {e.start}); candidates must be "
            "UTF-8")}
    if "\0" in source:
        line = raw.count(b"\n", 0, raw.index(b"\0")) + 1
        return {"verdict": "syntax_error",
                "detail": _cap(f"{name}:{line}: source code cannot contain null bytes")}
    try:
        findings = scan(source, path, allow)
    except SyntaxError as e:
        where = f"{os.path.basename(e.filename or path)}:{e.lineno}"
        return {"verdict": "syntax_error", "detail": _cap(f"{where}: {e.msg}")}
    except Exception as e:  # the parser gave up (nesting, memory): fail closed, as the judge
        findings = [Finding(1, 0, "unscannable", _cap(f"{type(e).__name__}: {e}"))]
    if not findings:
        return {"verdict": None}
    return {"verdict": "hack", "detail": _cap(str(findings[0])), "layer": "L1",
            "findings": [{"line": f.line, "rule": f.rule, "message": f.message}
                         for f in findings[:_FINDINGS_CAP]]}


def main(argv: list[str]) -> int:
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
