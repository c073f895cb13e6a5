"""End-to-end tests of runtime.worker (the judge) with its runtime.runner: two subprocesses
joined as kgb joins them, a hand-written job line, the judge's replies."""

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.records import CaseReport, Channel
from runtime.wire import PEER_FD

ROOT = Path(__file__).resolve().parents[2]
ADD = ROOT / "tasks" / "aten" / "add"
CANDIDATES = Path(__file__).resolve().parent / "candidates"
F16 = (1e-5, 2 * 2.0**-10)
F32 = (1e-6, 64 * 2.0**-23)
ADD_ENTRIES = [{"name": "add_Tensor", "mutates": [], "returns": "value",
                "reference_precision": "float64"}, {"name": "add_Scalar"}]
# The test candidates exercise the checker with torch ops, os and sys: the task-level L1
# allowances let them past the static scan (test_hack_* below run without them).
TEST_ALLOW = ["torch.add", "torch.ops", "add_", "zero_", "float", "to", "as_subclass",
              "tensor-subclass", "os", "sys"]


def tensor(shape: list[int], dtype: str, layout: str = "contiguous",
           dist: str = "normal") -> dict[str, Any]:
    return {"shape": shape, "dtype": dtype, "layout": layout, "dist": dist, "scale": 1}


def add_cases() -> list[dict[str, Any]]:
    cases = []
    grid = [([40999], "float16", "strided"), ([33, 17], "float32", "transposed"),
            ([20, 32, 15], "bfloat16", "offset"), ([], "float32", "contiguous"),
            ([0, 3], "float16", "expanded"), ([64, 13], "float32", "contiguous")]
    for shape, dtype, layout in grid:
        tol = F16 if dtype != "float32" else F32
        if dtype == "bfloat16":
            tol = (1e-5, 2 * 2.0**-7)
        cases.append({"entry": "add_Tensor", "atol": tol[0], "rtol": tol[1], "args": [
            {"name": "self", "tensor": tensor(shape, dtype, layout, "special")},
            {"name": "other", "tensor": tensor(shape, dtype)},
            {"name": "alpha", "keyword": True, "value": 1 if dtype == "bfloat16" else -2.5}]})
        cases.append({"entry": "add_Scalar", "atol": tol[0], "rtol": tol[1], "args": [
            {"name": "self", "tensor": tensor(shape, dtype, layout)},
            {"name": "other", "value": 3}, {"name": "alpha", "value": 2}]})
    for i, c in enumerate(cases):
        c.update(id=i, seed=1000 + 7 * i, timed=False, axes={})
    return cases


def job(candidate: Path | str, cases: list[dict[str, Any]], task_dir: Path = ADD,
        entries: list[dict[str, Any]] = ADD_ENTRIES,
        allow: list[str] = TEST_ALLOW) -> dict[str, Any]:
    return {"type": "job", "protocol": 1, "platform": "interpreter",
            "task": {"op": task_dir.name, "source": "aten", "dir": str(task_dir),
                     "entries": entries, "allow": allow},
            "candidate": str(candidate), "cases": cases}


def _peer(fd: int) -> Callable[[], None]:
    """preexec_fn: the socket end `fd` as the child's runtime.wire.PEER_FD, as kgb passes it
    (close_fds=False: subprocess would close it after this runs)."""
    def move() -> None:
        os.dup2(fd, PEER_FD)
    return move


def run(job_line: str, tmp_path: Path, runner_cmd: list[str] | None = None,
        judge_code: str | None = None,
        env_extra: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]], str]:
    """The job through a judge (runtime.worker, or python -c judge_code) and its runner
    (runtime.runner, or runner_cmd), joined by a socket as kgb joins them; the judge's exit
    status, its protocol lines, and both stderrs."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRITON_INTERPRET="1", **(env_extra or {}))
    judge_end, runner_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    (tmp_path / "runner").mkdir(exist_ok=True)
    runner = subprocess.Popen(runner_cmd or [sys.executable, "-m", "runtime.runner"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, cwd=tmp_path / "runner", env=env,
                              close_fds=False, preexec_fn=_peer(runner_end.fileno()))
    runner_end.close()
    try:
        judge = [sys.executable, "-c", judge_code] if judge_code else [
            sys.executable, "-m", "runtime.worker"]
        p = subprocess.run(judge, input=job_line.encode(),
                           capture_output=True, cwd=tmp_path, env=env, timeout=300,
                           close_fds=False, preexec_fn=_peer(judge_end.fileno()))
    finally:
        judge_end.close()
        try:
            runner_out = runner.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            runner.kill()
            runner_out = runner.communicate()[0]
    lines = p.stdout.decode().splitlines()
    return (p.returncode, [json.loads(line) for line in lines],
            p.stderr.decode() + "\n--- runner ---\n" + runner_out.decode("utf-8", "replace"))


def run_job(j: dict[str, Any], tmp_path: Path) -> tuple[int, list[dict[str, Any]], str]:
    return run(json.dumps(j) + "\n", tmp_path)


def verdicts(msgs: list[dict[str, Any]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for m in msgs:
        if m["type"] == "case":
            out.setdefault(m["verdict"], []).append(m["id"])
    return out


def check_sequence(msgs: list[dict[str, Any]], n: int) -> None:
    assert [m["type"] for m in msgs] == ["hello", "loaded"] + ["case"] * n + ["done"]
    assert msgs[0]["protocol"] == 1 and msgs[0]["torch"]
    assert [m["id"] for m in msgs[2:-1]] == list(range(n))
    assert msgs[-1]["cases"] == n


def test_shipped_solution_passes(tmp_path: Path) -> None:
    cases = add_cases()
    rc, msgs, err = run_job(job(ADD / "solution.py", cases), tmp_path)
    assert rc == 0, err
    check_sequence(msgs, len(cases))
    assert verdicts(msgs) == {"pass": list(range(len(cases)))}, msgs
    for m in msgs[2:-1]:
        assert 0 <= m["tol_use"] <= 1 and m["ms"] > 0 and "base_tol_use" in m


def test_syntax_error_is_fatal(tmp_path: Path) -> None:
    rc, msgs, _ = run_job(job(CANDIDATES / "syntax_error.py", add_cases()), tmp_path)
    assert rc != 0 and [m["type"] for m in msgs] == ["hello", "fatal"]
    fatal = msgs[1]
    assert (fatal["stage"], fatal["verdict"]) == ("load", "syntax_error")
    assert fatal["message"].startswith("syntax_error.py:6: ")


def test_import_error_is_fatal(tmp_path: Path) -> None:
    rc, msgs, _ = run_job(job(CANDIDATES / "import_raises.py", add_cases()), tmp_path)
    assert rc != 0 and msgs[1]["verdict"] == "import_error"
    assert msgs[1]["message"] == "RuntimeError: boom at import"
    assert "import_raises.py" in msgs[1]["trace"]


def test_missing_entry_is_fatal(tmp_path: Path) -> None:
    rc, msgs, _ = run_job(job(CANDIDATES / "missing_entry.py", add_cases()), tmp_path)
    assert rc != 0 and (msgs[1]["stage"], msgs[1]["verdict"]) == ("entry", "missing_entry")
    assert "add_Scalar" in msgs[1]["message"]


def test_raising_candidate_gives_case_errors(tmp_path: Path) -> None:
    cases = add_cases()[:3]
    rc, msgs, _ = run_job(job(CANDIDATES / "raises.py", cases), tmp_path)
    assert rc == 0
    check_sequence(msgs, 3)
    for m in msgs[2:-1]:
        assert m["verdict"] == "error"
        assert m["message"] == "ValueError: kernel exploded"
        assert "raises.py" in m["trace"] and len(m["trace"].encode()) <= 2048
        # harness frames (runtime/*.py: runner, inputs, ...) are left out
        assert not re.search(r"\bruntime/\w+\.py", m["trace"]), m["trace"]


def test_wrong_value_is_mismatch(tmp_path: Path) -> None:
    cases = add_cases()
    rc, msgs, _ = run_job(job(CANDIDATES / "wrong_value.py", cases), tmp_path)
    assert rc == 0
    v = verdicts(msgs)
    tensor_ids = [c["id"] for c in cases if c["entry"] == "add_Tensor"]
    alpha_one = [c["id"] for c in cases if c["entry"] == "add_Tensor"
                 and c["args"][2]["value"] == 1]
    empty = [c["id"] for c in cases if c["args"][0]["tensor"]["shape"] == [0, 3]]
    assert sorted(v["mismatch"]) == sorted(set(tensor_ids) - set(alpha_one) - set(empty))
    m = next(m for m in msgs if m.get("verdict") == "mismatch")
    assert m["bad"] > 0 and m["first_bad"] >= 0 and m["tol_use"] > 1 and "message" in m


def test_mutated_input_and_bad_outputs(tmp_path: Path) -> None:
    cases = add_cases()[:2]
    rc, msgs, _ = run_job(job(CANDIDATES / "mutates_input.py", cases), tmp_path)
    assert verdicts(msgs) == {"mutated_input": [0], "pass": [1]}
    assert "'other'" in msgs[2]["message"]
    rc, msgs, _ = run_job(job(CANDIDATES / "bad_outputs.py", cases), tmp_path)
    assert verdicts(msgs) == {"bad_output": [0, 1]}
    assert "Sneaky" in msgs[2]["message"] and "dtype" in msgs[3]["message"]


def test_candidate_prints_do_not_reach_the_protocol(tmp_path: Path) -> None:
    cases = add_cases()[:2]
    rc, msgs, err = run_job(job(CANDIDATES / "noisy.py", cases), tmp_path)
    assert rc == 0
    check_sequence(msgs, 2)
    assert verdicts(msgs) == {"pass": [0, 1]}
    assert "hello from the candidate" in err and "computing" in err


HACK = '''import torch

print("imported the hack")


def add_Tensor(self, other, *, alpha=1):
    return torch.add(self, torch.mul(other, alpha))


def add_Scalar(self, other, alpha=1):
    return torch.add(self, other * alpha)
'''


def test_hack_is_fatal_and_never_imported(tmp_path: Path) -> None:
    cand = tmp_path / "hack.py"
    cand.write_text(HACK)
    rc, msgs, err = run_job(job(cand, add_cases()[:2], allow=[]), tmp_path)
    assert rc != 0 and [m["type"] for m in msgs] == ["hello", "fatal"]
    fatal = msgs[1]
    assert (fatal["stage"], fatal["verdict"], fatal["layer"]) == ("scan", "hack", "L1")
    assert fatal["message"].startswith("line 7: torch-api: torch.add ")
    assert [(f["line"], f["rule"]) for f in fatal["findings"]] == [
        (7, "torch-api"), (7, "torch-api"), (11, "torch-api")]
    assert len(fatal["trace"].splitlines()) == 3
    assert "imported the hack" not in err  # never imported


def test_allow_lets_named_apis_through(tmp_path: Path) -> None:
    cand = tmp_path / "hack.py"
    cand.write_text(HACK)
    rc, msgs, err = run_job(job(cand, add_cases()[:2], allow=["torch.add", "torch.mul"]),
                            tmp_path)
    assert rc == 0, err
    assert [m["type"] for m in msgs][:2] == ["hello", "loaded"]
    assert "imported the hack" in err


def test_findings_are_capped(tmp_path: Path) -> None:
    cand = tmp_path / "many.py"
    cand.write_text("import torch\n\n\ndef add_Tensor(self, other, *, alpha=1):\n"
                    + "".join(f"    torch.mul{i}(self)\n" for i in range(300)))
    rc, msgs, _ = run_job(job(cand, add_cases()[:1], allow=[]), tmp_path)
    fatal = msgs[1]
    assert fatal["verdict"] == "hack" and len(fatal["findings"]) == 20
    assert len(fatal["trace"].encode()) <= 2048


def test_not_utf8_is_import_error(tmp_path: Path) -> None:
    cand = tmp_path / "latin1.py"
    cand.write_bytes(b"# caf\xe9\ndef add_Tensor(self, other, *, alpha=1):\n    return self\n")
    rc, msgs, _ = run_job(job(cand, add_cases()[:1]), tmp_path)
    assert (msgs[1]["stage"], msgs[1]["verdict"]) == ("load", "import_error")
    assert "not UTF-8" in msgs[1]["message"]


def test_scan_syntax_error_keeps_its_verdict(tmp_path: Path) -> None:
    cand = tmp_path / "nul.py"
    cand.write_bytes(b"x = 1\0\n")
    rc, msgs, _ = run_job(job(cand, add_cases()[:1]), tmp_path)
    assert (msgs[1]["stage"], msgs[1]["verdict"]) == ("load", "syntax_error")


@pytest.mark.parametrize("line", [
    "not json\n",
    "\n",
    json.dumps({"type": "job", "protocol": 2}) + "\n",
    json.dumps(job(ADD / "solution.py", [{"id": 0, "entry": "nope", "seed": 1, "atol": 0,
                                          "rtol": 0, "args": []}])) + "\n",
    json.dumps(job(ADD / "solution.py", [], allow=[3])) + "\n",  # type: ignore[list-item]
])
def test_malformed_job(line: str, tmp_path: Path) -> None:
    rc, msgs, _ = run(line, tmp_path)
    assert rc == 3
    assert [m["type"] for m in msgs] == ["hello", "fatal"]
    assert (msgs[1]["stage"], msgs[1]["verdict"]) == ("job", "protocol")


INPLACE_REFERENCE = '''
def _add_(self, other):
    self.add_(other)
    return self


add_inplace = add_copy = add_forgets = _add_
'''


def test_in_place_entries(tmp_path: Path) -> None:
    task = tmp_path / "add_"
    task.mkdir()
    (task / "reference.py").write_text(INPLACE_REFERENCE)
    names = ["add_inplace", "add_copy", "add_forgets"]
    entries = [{"name": n, "mutates": ["self"], "returns": "self"} for n in names]
    cases = [{"id": i, "entry": n, "seed": 5 + i, "timed": False, "atol": F32[0],
              "rtol": F32[1], "args": [{"name": "self", "tensor": tensor([9, 31], "float32",
                                                                         "strided")},
                                       {"name": "other", "tensor": tensor([31], "float32")}]}
             for i, n in enumerate(names)]
    rc, msgs, err = run_job(job(CANDIDATES / "inplace.py", cases, task, entries), tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": [0], "bad_output": [1], "mismatch": [2]}, msgs
    assert "out of tolerance" in msgs[4]["message"]


def test_numbers_are_valid_json() -> None:
    r, w = os.pipe()
    Channel(w).send(CaseReport(3, "mismatch", max_abs_err=float("nan"),
                               tol_use=float("inf"), message="x"))
    os.close(w)
    with os.fdopen(r) as f:
        line = f.read()
    assert "NaN" not in line and "Infinity" not in line and line.endswith("\n")
    msg = json.loads(line)
    assert msg == {"type": "case", "id": 3, "verdict": "mismatch", "max_abs_err": None,
                   "tol_use": 1e308, "message": "x"}


def test_baseline_py_is_the_timing_baseline_only_where_it_loads(tmp_path: Path) -> None:
    """A task's baseline.py (docs/task-format.md) is loaded for cuda timing jobs only; one that
    does not import leaves the reference as the baseline and says why; a missing entry too."""
    from types import SimpleNamespace

    from runtime.evaluator import Evaluator
    from runtime.loading import load_baseline
    (tmp_path / "baseline.py").write_text("def op(x):\n    return x\n")
    timing = SimpleNamespace(platform="cuda", rounds=25, task_dir=str(tmp_path))
    mod, note = load_baseline(timing)
    assert mod is not None and note is None and mod.op(3) == 3
    for job in (SimpleNamespace(platform="interpreter", rounds=25, task_dir=str(tmp_path)),
                SimpleNamespace(platform="cuda", rounds=None, task_dir=str(tmp_path)),
                SimpleNamespace(platform="cuda", rounds=25, task_dir=str(ADD))):
        assert load_baseline(job) == (None, None)

    def ref(x: Any) -> Any:
        return x
    ev = Evaluator(timing, None, None, None, mod, None)  # type: ignore[arg-type]
    assert ev._baseline_fn(SimpleNamespace(name="op"), ref) == (mod.op, "baseline.py")
    fn, label = ev._baseline_fn(SimpleNamespace(name="other"), ref)
    assert fn is ref and label == "reference (baseline.py defines no 'other')"

    (tmp_path / "baseline.py").write_text("import vllm_not_installed_here\n")
    mod, note = load_baseline(timing)
    assert mod is None and note and "did not load" in note and "ModuleNotFoundError" in note
    ev = Evaluator(timing, None, None, None, mod, note)  # type: ignore[arg-type]
    fn, label = ev._baseline_fn(SimpleNamespace(name="op"), ref)
    assert fn is ref and label.startswith("reference (baseline.py did not load")
    assert Evaluator(timing, None, None, None)._baseline_fn(  # type: ignore[arg-type]
        SimpleNamespace(name="op"), ref) == (ref, "reference")


@pytest.mark.parametrize("times, verdict, retries, kind", [
    ("2", "pass", 2, "torch"), ("always", "error", 2, "torch"), ("1", "pass", 1, "driver")])
def test_out_of_memory_is_retried(times: str, verdict: str, retries: int, kind: str,
                                  tmp_path: Path) -> None:
    """A case that runs out of device memory (another worker's, on a shared GPU) runs again
    after a wait; only an error that outlasts every retry is its verdict, and says so."""
    count = tmp_path / "count"
    env = dict(OOM_COUNT_FILE=str(count), OOM_TIMES=times, OOM_KIND=kind)
    # Two short waits instead of the real schedule; the worker otherwise runs unchanged.
    code = ("import sys, runtime.evaluator as e, runtime.worker as w; "
            "e._OOM_WAITS_S = (0.05, 0.05); sys.exit(w.main())")
    case = dict(add_cases()[2], id=0)  # float32: torch.add is exact enough there
    allow = TEST_ALLOW + ["torch.OutOfMemoryError", "open", "read", "write"]
    line = json.dumps(job(CANDIDATES / "out_of_memory.py", [case], allow=allow)) + "\n"
    rc, msgs, err = run(line, tmp_path, judge_code=code, env_extra=env)
    assert rc == 0, err
    check_sequence(msgs, 1)
    case = msgs[2]
    assert case["verdict"] == verdict and case["oom_retries"] == retries, case
    if verdict == "pass":
        assert int(count.read_text()) >= retries + 1  # the failed calls, then a passing one
    else:
        assert "OutOfMemoryError" in case["message"]
        assert "out of device memory in each of 3 attempts" in case["message"]
        assert int(count.read_text()) == 3


def test_out_of_memory_retry_repeats_the_once_per_entry_checks(tmp_path: Path) -> None:
    """The determinism re-run runs once per entry; a case retried after running out of memory
    inside it runs it again, so raising there cannot skip it (the 4th call, the re-run of the
    retried case, is wrong and must be caught)."""
    count = tmp_path / "count"
    env = dict(OOM_COUNT_FILE=str(count))
    code = ("import sys, runtime.evaluator as e, runtime.worker as w; "
            "e._OOM_WAITS_S = (0.05, 0.05); sys.exit(w.main())")
    j = job(CANDIDATES / "oom_in_rerun.py", [dict(add_cases()[2], id=0)],
            entries=[dict(ADD_ENTRIES[0], ghost=False)],
            allow=TEST_ALLOW + ["torch.OutOfMemoryError", "open", "read", "write"])
    j["task"]["ghost"] = True  # the determinism re-run (and L2, off for the entry)
    rc, msgs, err = run(json.dumps(j) + "\n", tmp_path, judge_code=code, env_extra=env)
    assert rc == 0, err
    case = msgs[2]
    assert case["verdict"] == "mismatch" and case["oom_retries"] == 1, case
    assert "determinism re-run" in case["message"] and int(count.read_text()) == 4




def test_runner_out_of_memory_building_inputs_is_retried(tmp_path: Path) -> None:
    """A runner that runs out of device memory while it builds a case's inputs from their
    recipe (other jobs hold the GPU) replies with the error, and the judge retries the case,
    where the runner used to exit with it (seen on an H100, 2026-12-06: 'worker exited')."""
    runner_code = (
        "import sys, torch, runtime.runner as r\n"
        "real, n = r.build_args, [0]\n"
        "def once(*a, **k):\n"
        "    n[0] += 1\n"
        "    if n[0] == 1:\n"
        "        raise torch.OutOfMemoryError('CUDA out of memory (built by the test)')\n"
        "    return real(*a, **k)\n"
        "r.build_args = once\n"
        "sys.exit(r.main())\n")
    judge_code = ("import sys, runtime.evaluator as e, runtime.worker as w; "
                  "e._OOM_WAITS_S = (0.05, 0.05); sys.exit(w.main())")
    case = dict(add_cases()[2], id=0)
    line = json.dumps(job(ADD / "solution.py", [case])) + "\n"
    rc, msgs, err = run(line, tmp_path, runner_cmd=[sys.executable, "-c", runner_code],
                        judge_code=judge_code)
    assert rc == 0, err
    check_sequence(msgs, 1)
    assert msgs[2]["verdict"] == "pass" and msgs[2]["oom_retries"] == 1, msgs[2]
