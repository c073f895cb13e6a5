"""The candidate's file before anything of it runs: read as UTF-8, scanned by L1.

scan_candidate raises Fatal with the record of a candidate that may not load (unreadable, not
UTF-8, a syntax error, L1 findings: runtime.guards); syntax_error is shared with the runner,
whose import of the candidate can raise one too.
"""

from __future__ import annotations

import os
import traceback

from runtime.guards import Finding, scan
from runtime.job import Job
from runtime.records import TRACE_CAP_BYTES, Fatal, FatalReport, cap, describe

_FINDINGS_CAP = 20  # L1 findings listed in a fatal line; the trace lists more, capped in bytes


def syntax_error(e: SyntaxError, path: str) -> Fatal:
    where = f"{os.path.basename(e.filename or path)}:{e.lineno}"
    return Fatal(FatalReport("load", "syntax_error", cap(f"{where}: {e.msg}"), cap(
        "".join(traceback.format_exception_only(type(e), e)), TRACE_CAP_BYTES, tail=True)))


def _hack(findings: list[Finding]) -> Fatal:
    """The fatal record of an L1 rejection: the first finding, all of them in the trace."""
    return Fatal(FatalReport(
        "scan", "hack", cap(str(findings[0])),
        cap("\n".join(map(str, findings)), TRACE_CAP_BYTES), "L1",
        tuple({"line": f.line, "rule": f.rule, "message": f.message}
              for f in findings[:_FINDINGS_CAP])))


def scan_candidate(job: Job) -> None:
    """L1: read the candidate as UTF-8 and scan its syntax tree; raise Fatal unless it may load.

    Nothing of the candidate runs here: a rejected candidate is never imported.
    """
    name = os.path.basename(job.candidate)
    try:
        with open(job.candidate, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Fatal(FatalReport("load", "import_error", describe(e))) from None
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Fatal(FatalReport("load", "import_error", cap(
            f"{name}: not UTF-8 text (invalid byte at offset {e.start}); candidates must be "
            "UTF-8"))) from None
    if "\0" in source:
        # Python 3.11.2 (Debian 12's) raises ValueError for this where later ones raise
        # SyntaxError: the same verdict either way.
        line = raw.count(b"\n", 0, raw.index(b"\0")) + 1
        raise Fatal(FatalReport("load", "syntax_error", cap(
            f"{name}:{line}: source code cannot contain null bytes")))
    try:
        findings = scan(source, job.candidate, job.allow)
    except SyntaxError as e:
        raise syntax_error(e, job.candidate) from None
    except Exception as e:  # the parser gave up (nesting, memory): fail closed
        findings = [Finding(1, 0, "unscannable", describe(e))]
    if findings:
        raise _hack(findings)
