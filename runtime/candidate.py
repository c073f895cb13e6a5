"""The candidate's file before anything of it runs: read as UTF-8, scanned by L1.

scan_candidate raises Fatal with the record of a candidate that may not load (unreadable, not
UTF-8, a syntax error, L1 findings: runtime.guards); syntax_error is shared with the runner,
whose import of the candidate can raise one too.
"""

from __future__ import annotations

import os
import traceback

from runtime.guards import Finding
from runtime.job import Job
from runtime.records import TRACE_CAP_BYTES, Fatal, FatalReport, describe
from runtime.source import cap, judge_source

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
    """L1: read the candidate and judge its source (runtime.source); raise Fatal unless it may
    load. Nothing of the candidate runs here: a rejected candidate is never imported.
    """
    try:
        with open(job.candidate, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Fatal(FatalReport("load", "import_error", describe(e))) from None
    found = judge_source(raw, job.candidate, job.allowed())
    if found is None:
        return
    if found.syntax is not None:
        raise syntax_error(found.syntax, job.candidate)
    if found.findings:
        raise _hack(found.findings)
    raise Fatal(FatalReport("load", found.verdict, found.detail))
