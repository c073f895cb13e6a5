"""Static anti-hack scan (layer L1): judge a candidate's syntax tree before it is imported.

`scan(source, filename)` parses the candidate with `ast` (nothing is imported or executed) and
returns one `Finding` per construct that a Triton candidate has no business using: torch APIs
outside a whitelist of allocation, metadata and view functions; torch compute methods called on
tensors; Triton's timing, runtime and compiler internals; imports other than torch, triton and a
few pure standard modules; `exec`/`eval`/`open` and friends; dunder attribute games; tensor
subclasses; state kept across calls (module-level mutable containers, `lru_cache`, mutable
defaults, writes to non-local objects or through aliases of them, `global`); broad `except`
clauses (fallback paths); and source encodings other than UTF-8 (the importer would decode
other bytes than were scanned).

Attributes are judged by an allow-list, not a block-list: an attribute of anything the
candidate did not define itself (a parameter, what a call returned, a module's object) must be
a name honest code reads (_HOST_ATTRS; _KERNEL_ATTRS inside a Triton kernel), never an
underscore name; frame, generator, traceback and code internals are refused by name wherever
they appear; `match` class patterns (attribute reads without attribute syntax) and `@` on host
values (torch's matrix product) are refused outright.

Names are resolved through the module's scopes: `import torch as T`, `from torch import mul as
m`, and `getattr(torch, "mul")` all reach `torch.mul`; a local variable or parameter that
shadows a name is not mistaken for it. docs/anti-hack.md lists the rules, the allow-list's
structure, what L1 cannot see (operators on tensors, dynamic dispatch on objects of unknown
type) and how to extend the hack corpus. The tables are hard-coded on purpose: nothing is
imported or computed at import.

The scan is split by rule family: runtime.guard_tables (the tables), runtime.guard_context
(scopes and names), runtime.guard_own (the candidate's own objects), runtime.guard_attrs
(attributes), runtime.guard_state (module state) and runtime.guard_scan (the walk).
"""

from __future__ import annotations

import ast
import re

from runtime.guard_scan import _Scanner
from runtime.guard_tables import _CODING_RE, RULES, Finding

__all__ = ["Finding", "RULES", "scan"]


def _encoding_findings(source: str) -> list[Finding]:
    """A PEP 263 declaration other than UTF-8 makes the importer read other text than L1.

    Lines are split as Python's tokenizer splits them (str.splitlines also splits at \\v, \\f
    and others, which would move a declaration out of sight), and both lines are checked even
    where Python would look at one only.
    """
    out = []
    for i, line in enumerate(re.split(r"\r\n|\r|\n", source, maxsplit=2)[:2]):
        m = re.match(_CODING_RE, line)
        if m:
            enc = m.group(1).lower().replace("_", "-")
            if not (enc in ("utf8", "utf-8") or enc.startswith("utf-8-")):
                out.append(Finding(i + 1, 0, "encoding", f"source declares encoding '{enc}'; "
                                   "candidates must be UTF-8"))
    return out


def scan(source: str, filename: str, allow: frozenset[str] = frozenset()) -> list[Finding]:
    """Findings of the static scan, ordered by position; empty means the candidate may load.

    `source` is the candidate's text (decoded as UTF-8), `filename` is used for syntax errors.
    `allow` holds a task's extra allowances: dotted names (torch.ops.aten, numpy), method names
    (sum), builtins, or rule ids; a dotted name allows everything beneath it. Raises SyntaxError
    (and ValueError, for text the parser refuses) like `compile` would.
    """
    findings = _encoding_findings(source)
    tree = ast.parse(source, filename=filename)
    try:
        scanner = _Scanner(tree, allow)
        scanner.visit(tree)
        findings += scanner.findings
    except RecursionError:
        findings.append(Finding(1, 0, "unscannable", "the syntax tree is too deep to analyse"))
    seen: set[tuple[int, int, str]] = set()
    out = []
    # By position; at one position the more specific rule first (RULES order).
    for f in sorted(findings, key=lambda f: (f.line, f.col, RULES.index(f.rule))):
        if (f.line, f.col, f.rule) not in seen:
            seen.add((f.line, f.col, f.rule))
            out.append(f)
    return out
