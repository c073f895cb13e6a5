"""runtime.precheck answers as the judge's load stage (runtime.candidate.scan_candidate) does:
kgb eval takes an L1 refusal from it without starting a judge (src/eval.c precheck_jobs), and
kgb serve refuses submissions with it, so its verdict and detail must be the judge's."""

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from runtime.candidate import scan_candidate
from runtime.precheck import check
from runtime.records import Fatal

HACKS = Path(__file__).resolve().parents[2] / "tests" / "hacks" / "scale"
ODD = {"not_utf8.py": b"x = '\xff'\n", "nul.py": b"x = 1\n\0\n",
       "syntax.py": b"def f(:\n", "honest.py": b"import torch\n"}


def judge(path: Path, allow: frozenset[str]) -> dict[str, Any]:
    try:
        scan_candidate(SimpleNamespace(  # type: ignore[arg-type]
            candidate=str(path), allow=allow, allowed=lambda: allow))
    except Fatal as f:
        r = f.report
        return {"verdict": r.verdict, "detail": r.message, "findings": list(r.findings or [])}
    return {"verdict": None}


def precheck(path: Path, allow: frozenset[str]) -> dict[str, Any]:
    res = check(path.read_bytes(), str(path), allow)
    return {k: res[k] for k in ("verdict", "detail", "findings") if k in res} | (
        {"findings": []} if res["verdict"] and "findings" not in res else {})


@pytest.mark.parametrize("name", sorted(p.name for p in HACKS.glob("*.py")) + sorted(ODD))
def test_precheck_gives_the_judges_verdict_and_detail(name: str, tmp_path: Path) -> None:
    path = HACKS / name if name not in ODD else tmp_path / name
    if name in ODD:
        path.write_bytes(ODD[name])
    for allow in (frozenset(), frozenset({"torch.mul", "os"})):
        assert precheck(path, allow) == judge(path, allow)
