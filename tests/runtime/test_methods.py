"""A method run's library (docs/methods.md, runtime.job.Library): the job's `method` is what
lets a candidate import it, the runners find it at its path with the table's environment, and
the library's own import of torch._dynamo is not blamed on the candidate."""

import json
from pathlib import Path
from typing import Any

import pytest

from runtime.job import parse_job
from test_worker import ADD, add_cases, job, run_job, verdicts

# A library of Triton kernels (the shipped add solution's), which says whether it got the
# method's environment, and imports torch._dynamo as Liger-Kernel does (through
# torch.distributed.tensor): that import rebinds torch.manual_seed.
LIB_INIT = """import os
import torch._dynamo
assert os.environ.get("FAKELIB_MARK") == "set by the table", "no method environment"
"""
CANDIDATE = """import fakelib.add as lib


def add_Tensor(self, other, *, alpha):
    return lib.add_Tensor(self, other, alpha=alpha)


def add_Scalar(self, other, alpha):
    return lib.add_Scalar(self, other, alpha)
"""


def library(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    lib = tmp_path / "lib" / "fakelib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(LIB_INIT)
    (lib / "add.py").write_text((ADD / "solution.py").read_text())
    cand = tmp_path / "fake.py"
    cand.write_text(CANDIDATE)
    return cand, {"name": "fake", "module": "fakelib", "path": str(tmp_path / "lib"),
                  "env": {"FAKELIB_MARK": "set by the table"}}


def test_the_library_is_the_methods_job_alone(tmp_path: Path) -> None:
    cand, method = library(tmp_path)
    cases = add_cases()[:4]
    rc, msgs, err = run_job(job(cand, cases, allow=[]), tmp_path)
    assert rc != 0 and msgs[1]["type"] == "fatal", err
    assert (msgs[1]["verdict"], msgs[1]["findings"][0]["rule"]) == ("hack", "import")
    rc, msgs, err = run_job(dict(job(cand, cases, allow=[]), method=method), tmp_path)
    assert rc == 0, err
    # Passed in the runner (with the environment: the library asserts it), the L2 replay's
    # runner and the determinism re-run; no integrity finding for torch._dynamo's import.
    assert verdicts(msgs) == {"pass": list(range(len(cases)))}, msgs


@pytest.mark.parametrize("method,why", [
    ({"name": "x", "module": "os.path", "path": "/x"}, "not a module name"),
    ({"name": "x", "module": "m", "path": "/x", "env": {"A": 1}}, "object of strings"),
    ({"name": "x", "path": "/x"}, "module: missing"),
])
def test_malformed_method(method: dict[str, Any], why: str) -> None:
    line = dict(job(ADD / "solution.py", add_cases()[:1]), method=method)
    with pytest.raises(ValueError, match=why):
        parse_job(json.dumps(line).encode())


def test_allowance_is_the_module() -> None:
    method = {"name": "x", "module": "fakelib", "path": "/x"}
    j = parse_job(json.dumps(dict(job(ADD / "solution.py", add_cases()[:1], allow=["sum"]),
                                  method=method)).encode())
    assert j.library is not None and j.allowed() == {"sum", "fakelib"}
    assert parse_job(json.dumps(job(ADD / "solution.py", add_cases()[:1], allow=["sum"]))
                     .encode()).allowed() == {"sum"}
