"""The kind-specific checks (runtime.kinds) through the worker: views, allocations, random ops,
scalars. Each test writes a small task (reference.py) and candidates into tmp_path."""

from pathlib import Path
from typing import Any

from test_worker import F32, run_job, tensor, verdicts

# The candidates below call torch directly; the task-level allowances let them past L1.
ALLOW = ["torch", "narrow", "clone", "float", "sum", "mean", "item", "all", "ne", "any"]


def make_task(tmp_path: Path, reference: str, candidates: dict[str, str]) -> Path:
    task = tmp_path / "task"
    task.mkdir()
    (task / "reference.py").write_text(reference)
    for name, text in candidates.items():
        (tmp_path / f"{name}.py").write_text(text)
    return task


def kind_job(tmp_path: Path, task: Path, kind: str, candidate: str,
             entries: list[dict[str, Any]], cases: list[dict[str, Any]],
             mode: str = "evaluate") -> dict[str, Any]:
    for i, c in enumerate(cases):
        c.setdefault("id", i)
        c.setdefault("seed", 11 + 5 * i)
        c.setdefault("timed", False)
        c.setdefault("atol", F32[0])
        c.setdefault("rtol", F32[1])
    return {"type": "job", "protocol": 1, "platform": "interpreter", "mode": mode,
            "task": {"op": "t", "source": "aten", "dir": str(task), "kind": kind,
                     "entries": entries, "allow": ALLOW},
            "candidate": str(tmp_path / f"{candidate}.py"), "cases": cases}


NARROW = "def narrow(self, dim, start, length):\n    return self.narrow(dim, start, length)\n"


def narrow_cases() -> list[dict[str, Any]]:
    return [{"entry": "narrow", "args": [
        {"name": "self", "tensor": tensor([33, 17], "float32", layout)},
        {"name": "dim", "value": dim}, {"name": "start", "value": 3},
        {"name": "length", "value": 5}]} for layout in ("contiguous", "strided", "offset")
        for dim in (0, 1)]


def test_view_must_share_storage(tmp_path: Path) -> None:
    task = make_task(tmp_path, NARROW, {
        "view": NARROW,
        "copying": "def narrow(self, dim, start, length):\n"
                "    return self.narrow(dim, start, length).clone()\n"})
    entries = [{"name": "narrow"}]
    rc, msgs, err = run_job(kind_job(tmp_path, task, "view", "view", entries, narrow_cases()),
                            tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": list(range(6))}, msgs
    # The copy has the right values: only the view check can fail it.
    rc, msgs, err = run_job(kind_job(tmp_path, task, "view", "copying", entries, narrow_cases()),
                            tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"bad_output": list(range(6))}, msgs
    assert "does not share its storage" in msgs[2]["message"]
    # The view rule holds for compute tasks too (ATen's `contiguous` and `to` return self).
    rc, msgs, err = run_job(kind_job(tmp_path, task, "compute", "copying", entries,
                                     narrow_cases()), tmp_path)
    assert verdicts(msgs) == {"bad_output": list(range(6))}, msgs


EMPTY_STRIDED = ("import torch\n\n\ndef empty_strided(size, stride, dtype):\n"
                 "    return torch.empty_strided(size, stride, dtype=dtype)\n")


def test_alloc_checks_metadata_not_values(tmp_path: Path) -> None:
    task = make_task(tmp_path, EMPTY_STRIDED, {
        "good": EMPTY_STRIDED,
        "contiguous": "import torch\n\n\ndef empty_strided(size, stride, dtype):\n"
                      "    return torch.empty(size, dtype=dtype)\n",
        "wrong_dtype": "import torch\n\n\ndef empty_strided(size, stride, dtype):\n"
                       "    return torch.empty_strided(size, stride, dtype=torch.float64)\n"})
    cases = [{"entry": "empty_strided", "args": [
        {"name": "size", "value": [7, 9]}, {"name": "stride", "value": [1, 7]},
        {"name": "dtype", "dtype": "float16"}]}]
    entries = [{"name": "empty_strided"}]
    got = {}
    for cand in ("good", "contiguous", "wrong_dtype"):
        rc, msgs, err = run_job(kind_job(tmp_path, task, "alloc", cand, entries, cases),
                                tmp_path)
        assert rc == 0, err
        got[cand] = (msgs[2]["verdict"], msgs[2].get("message", ""))
    assert got["good"][0] == "pass"
    assert got["contiguous"][0] == "bad_output" and "strides [9, 1]" in got["contiguous"][1]
    assert got["wrong_dtype"][0] == "bad_output" and "dtype" in got["wrong_dtype"][1]


BERNOULLI = '''import torch


def bernoulli(self):
    return torch.bernoulli(self)


def check_bernoulli(sample, draw):
    p, out = sample.args["self"], sample.out
    if not bool(((out == 0) | (out == 1)).all()):
        return "values outside {0, 1}"
    n = out.numel()
    mean, want = float(out.sum()) / n, float(p.sum()) / n
    if abs(mean - want) > 6 * (0.25 / n) ** 0.5:
        return f"mean {mean:.4f}, expected {want:.4f}"
    if bool((draw().out == out).all()):
        return "two calls gave the same sample"
    return None
'''


def test_random_uses_the_task_statistics(tmp_path: Path) -> None:
    task = make_task(tmp_path, BERNOULLI, {
        "good": "import torch\n\n\ndef bernoulli(self):\n    return torch.bernoulli(self)\n",
        "threshold": "def bernoulli(self):\n    return (self > 0.5).float()\n",
        "biased": "import torch\n\n\ndef bernoulli(self):\n"
                  "    return torch.bernoulli(self * 0.9)\n",
        "no_check": "import torch\n\n\ndef bernoulli(self):\n    return torch.bernoulli(self)\n"})
    cases = [{"entry": "bernoulli", "args": [{"name": "self", "tensor": {
        "shape": [20000], "dtype": "float32", "layout": "contiguous", "dist": "uniform",
        "low": 0.2, "high": 0.8}}]}]
    entries = [{"name": "bernoulli"}]
    got = {}
    for cand in ("good", "threshold", "biased"):
        rc, msgs, err = run_job(kind_job(tmp_path, task, "random", cand, entries, cases),
                                tmp_path)
        assert rc == 0, err
        got[cand] = (msgs[2]["verdict"], msgs[2].get("message", ""))
    assert got["good"] == ("pass", "")
    assert got["threshold"][0] == "mismatch" and "same sample" in got["threshold"][1]
    assert got["biased"][0] == "mismatch" and "mean" in got["biased"][1]
    # A random task without its statistical test is the task's error, never a pass.
    (task / "reference.py").write_text(BERNOULLI.split("\n\ndef check_")[0] + "\n")
    rc, msgs, err = run_job(kind_job(tmp_path, task, "random", "no_check", entries, cases),
                            tmp_path)
    assert msgs[2]["verdict"] == "ref_error" and "check_bernoulli" in msgs[2]["message"]


def test_scalar_validity_judges_input_dependence(tmp_path: Path) -> None:
    task = make_task(tmp_path, "def item(self):\n    return self.item()\n\n\n"
                               "def one(self):\n    return 1.0\n",
                     {"c": "def item(self):\n    return 0.0\n\n\none = item\n"})
    cases = [{"entry": e, "args": [{"name": "self", "tensor": tensor([], "float32")}]}
             for e in ("item", "one")]
    entries = [{"name": "item"}, {"name": "one"}]
    rc, msgs, err = run_job(kind_job(tmp_path, task, "scalar", "c", entries, cases,
                                     "validity"), tmp_path)
    assert rc == 0, err
    assert [m["verdict"] for m in msgs if m["type"] == "case"] == ["pass", "degenerate"]
    # A compute task's one-value output stays unjudged (too small to say).
    rc, msgs, err = run_job(kind_job(tmp_path, task, "compute", "c", entries, cases,
                                     "validity"), tmp_path)
    assert [m["verdict"] for m in msgs if m["type"] == "case"] == ["skipped", "skipped"]


def test_validity_counts_a_data_dependent_size_as_dependence(tmp_path: Path) -> None:
    task = make_task(tmp_path, "def positives(self):\n    return self[self > 0]\n",
                     {"c": "def positives(self):\n    return self\n"})
    cases = [{"entry": "positives", "args": [{"name": "self", "tensor": tensor([4099],
                                                                            "float32")}]}]
    rc, msgs, err = run_job(kind_job(tmp_path, task, "compute", "c", [{"name": "positives"}],
                                     cases, "validity"), tmp_path)
    assert rc == 0, err
    assert [m["verdict"] for m in msgs if m["type"] == "case"] == ["pass"], msgs


CLONE = ("def clone(self, *, memory_format=None):\n"
         "    return self.clone(memory_format=memory_format)\n")


def test_memory_format_rule_checks_strides(tmp_path: Path) -> None:
    task = make_task(tmp_path, CLONE, {
        "good": CLONE,
        "ignores": "def clone(self, *, memory_format=None):\n    return self.clone()\n"})
    entries = [{"name": "clone"}]

    def cases() -> list[dict[str, Any]]:
        return [{"entry": "clone", "args": [
            {"name": "self", "tensor": tensor(shape, "float32", layout)},
            {"name": "memory_format", "keyword": True, "memory_format": fmt}]}
            for shape, layout, fmt in (
                ([2, 3, 4, 5], "contiguous", "channels_last"),
                ([2, 3, 4, 5], "channels_last", "contiguous_format"),
                ([2, 3, 4, 5], "channels_last", "preserve_format"),
                ([2, 3, 2, 4, 5], "contiguous", "channels_last_3d"),
                ([2, 1, 4, 1], "contiguous", "channels_last"),  # only size-1 dims differ
                ([2, 3, 4, 5], "channels_last", None),  # no format passed: not checked
                ([0, 3, 4, 5], "contiguous", "channels_last"))]  # nothing to lay out
    rc, msgs, err = run_job(kind_job(tmp_path, task, "compute", "good", entries, cases()),
                            tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": list(range(7))}, msgs
    # Right values, contiguous strides: only the memory format rule can fail it.
    rc, msgs, err = run_job(kind_job(tmp_path, task, "compute", "ignores", entries, cases()),
                            tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"bad_output": [0, 1, 3], "pass": [2, 4, 5, 6]}, msgs
    assert "strides [60, 20, 5, 1], expected [60, 1, 15, 3]" in msgs[2]["message"]


NAN_TO_NUM = ("import torch\n\n\ndef nan_to_num(self, nan, posinf, neginf):\n"
              "    return torch.nan_to_num(self, nan, posinf, neginf)\n")


def test_nonfinite_values_reach_reference_and_candidate(tmp_path: Path) -> None:
    # "inf" and "nan" arrive as floats: the candidate that checks their type passes only then.
    task = make_task(tmp_path, NAN_TO_NUM, {
        "good": "import math\n\n\ndef nan_to_num(self, nan, posinf, neginf):\n"
                "    assert math.isnan(nan) and posinf == math.inf and neginf == -math.inf\n"
                "    return self.clone()\n"})
    cases = [{"entry": "nan_to_num", "args": [
        {"name": "self", "tensor": tensor([5, 7], "float32")}, {"name": "nan", "value": "nan"},
        {"name": "posinf", "value": "inf"}, {"name": "neginf", "value": "-inf"}]}]
    rc, msgs, err = run_job(kind_job(tmp_path, task, "compute", "good",
                                     [{"name": "nan_to_num"}], cases), tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": [0]}, msgs
