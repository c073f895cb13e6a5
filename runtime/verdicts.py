"""The verdicts kgb knows, generated from src/verdicts.def by
scripts/gen-verdicts.sh: edit that file, then run `make runtime/verdicts.py`.
"""

from typing import Final, Literal, cast

PASS: Final = "pass"
MISMATCH: Final = "mismatch"
BAD_OUTPUT: Final = "bad_output"
MUTATED_INPUT: Final = "mutated_input"
ERROR: Final = "error"
REF_ERROR: Final = "ref_error"
SKIPPED: Final = "skipped"
DEGENERATE: Final = "degenerate"
HACK: Final = "hack"
SYNTAX_ERROR: Final = "syntax_error"
IMPORT_ERROR: Final = "import_error"
MISSING_ENTRY: Final = "missing_entry"
PROTOCOL: Final = "protocol"
ENV_ERROR: Final = "env_error"
CRASH: Final = "crash"
TIMEOUT: Final = "timeout"

Verdict = Literal[
    "pass",
    "mismatch",
    "bad_output",
    "mutated_input",
    "error",
    "ref_error",
    "skipped",
    "degenerate",
    "hack",
    "syntax_error",
    "import_error",
    "missing_entry",
    "protocol",
    "env_error",
    "crash",
    "timeout",
]

# name: (the levels it may appear at, what it counts as)
TABLE: Final[dict[str, tuple[tuple[str, ...], str]]] = {
    "pass": (("case", "candidate"), "pass"),
    "mismatch": (("case", "candidate"), "fail"),
    "bad_output": (("case", "candidate"), "fail"),
    "mutated_input": (("case", "candidate"), "fail"),
    "error": (("case", "candidate"), "fail"),
    "ref_error": (("case", "candidate"), "task"),
    "skipped": (("case", "candidate"), "none"),
    "degenerate": (("case", "candidate"), "none"),
    "hack": (("case", "fatal", "candidate"), "fail"),
    "syntax_error": (("fatal", "candidate"), "fail"),
    "import_error": (("fatal", "candidate"), "fail"),
    "missing_entry": (("fatal", "candidate"), "fail"),
    "protocol": (("fatal", "candidate"), "fail"),
    "env_error": (("fatal",), "env"),
    "crash": (("candidate",), "fail"),
    "timeout": (("candidate",), "fail"),
}
CASE: Final = frozenset(k for k, (lv, _) in TABLE.items() if "case" in lv)
FATAL: Final = frozenset(k for k, (lv, _) in TABLE.items() if "fatal" in lv)


def named(name: object) -> Verdict | None:
    """The verdict called `name`, or None when the table has none of that name."""
    return cast(Verdict, name) if isinstance(name, str) and name in TABLE else None
