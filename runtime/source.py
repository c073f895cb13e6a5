"""A candidate's source before anything of it runs: its load-stage verdict, and the text cap.

judge_source() decodes the bytes as UTF-8, refuses a NUL byte, parses and runs the anti-hack
scan L1 (runtime.guards): None when the candidate may be imported, else the verdict the judge
gives (import_error, syntax_error or hack) with its detail. The judge (runtime.candidate) and
`kgb serve`'s precheck at submission (runtime.precheck) both call it, so a submission is refused
with the judge's own verdict and detail. It imports neither torch nor triton.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from runtime.guards import Finding, scan
from runtime.verdicts import Verdict

__all__ = ["MESSAGE_CAP_BYTES", "SourceVerdict", "cap", "judge_source"]

MESSAGE_CAP_BYTES = 1024  # message and trace caps keep each line far below kgb's 1 MiB


def cap(text: str, limit: int = MESSAGE_CAP_BYTES, tail: bool = False) -> str:
    """At most `limit` UTF-8 bytes: the head, or with `tail` the end, marked by '...'."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit:
        return text
    if tail:
        return "..." + raw[-(limit - 3):].decode("utf-8", "ignore")
    return raw[:limit - 3].decode("utf-8", "ignore") + "..."


@dataclass(frozen=True)
class SourceVerdict:
    """Why a candidate may not load: its verdict and detail; for syntax_error the parser's
    exception (for its trace), for hack the L1 findings (at least one)."""

    verdict: Verdict
    detail: str
    syntax: SyntaxError | None = None
    findings: list[Finding] = field(default_factory=list)


def judge_source(raw: bytes, path: str, allow: frozenset[str]) -> SourceVerdict | None:
    """The load-stage verdict of candidate bytes `raw`, named `path`, or None if it may load."""
    name = os.path.basename(path)
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return SourceVerdict("import_error", cap(
            f"{name}: not UTF-8 text (invalid byte at offset {e.start}); candidates must be "
            "UTF-8"))
    if "\0" in source:
        # Python 3.11.2 (Debian 12's) raises ValueError for this where later ones raise
        # SyntaxError: the same verdict either way.
        line = raw.count(b"\n", 0, raw.index(b"\0")) + 1
        return SourceVerdict("syntax_error",
                             cap(f"{name}:{line}: source code cannot contain null bytes"))
    try:
        findings = scan(source, path, allow)
    except SyntaxError as e:
        where = f"{os.path.basename(e.filename or path)}:{e.lineno}"
        return SourceVerdict("syntax_error", cap(f"{where}: {e.msg}"), syntax=e)
    except Exception as e:  # the parser gave up (nesting, memory): fail closed
        findings = [Finding(1, 0, "unscannable", cap(f"{type(e).__name__}: {e}"))]
    if not findings:
        return None
    return SourceVerdict("hack", cap(str(findings[0])), findings=findings)
