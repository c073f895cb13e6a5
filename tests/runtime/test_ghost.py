"""L2 ghost replay through the worker: honest kernels pass, torch-computed answers are hacks,
and a case whose right answer is the untouched input is not judged."""

from pathlib import Path
from typing import Any

from test_worker import F32, run_job, tensor, verdicts

ROOT = Path(__file__).resolve().parents[2]
SCALE = ROOT / "tests" / "cli" / "fixtures" / "tasks" / "aten" / "scale"
HACKS = ROOT / "tests" / "hacks" / "scale"
GOOD = ROOT / "tests" / "cli" / "fixtures" / "candidates" / "scale" / "good.py"


def ghost_job(candidate: Path, task: Path, entry: str, cases: list[dict[str, Any]],
              ghost: bool = True, mutates: list[str] | None = None,
              returns: str = "value") -> dict[str, Any]:
    for i, c in enumerate(cases):
        c.update(id=i, seed=3 + i, timed=False, atol=F32[0], rtol=F32[1], entry=entry)
    return {"type": "job", "protocol": 1, "platform": "interpreter",
            "task": {"op": task.name, "source": "aten", "dir": str(task), "kind": "compute",
                     "ghost": ghost, "allow": ["torch"],
                     "entries": [{"name": entry, "mutates": mutates or [],
                                  "returns": returns}]},
            "candidate": str(candidate), "cases": cases}


def scale_cases() -> list[dict[str, Any]]:
    return [{"args": [{"name": "self", "tensor": tensor(shape, "float32", layout)}]}
            for shape, layout in (([1000], "strided"), ([33, 65], "contiguous"), ([], "contiguous"),
                                  ([0, 4], "contiguous"))]


def test_honest_kernel_passes_the_replay(tmp_path: Path) -> None:
    rc, msgs, err = run_job(ghost_job(GOOD, SCALE, "scale", scale_cases()), tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": [0, 1, 2, 3]}, msgs


def test_torch_answers_are_hacks_and_empty_outputs_are_not_judged(tmp_path: Path) -> None:
    for name in ("operator_binop", "trivial_launch_fallback", "kernel_then_overwrite"):
        rc, msgs, err = run_job(ghost_job(HACKS / f"{name}.py", SCALE, "scale", scale_cases()),
                                tmp_path)
        assert rc == 0, err
        assert verdicts(msgs) == {"hack": [0, 1, 2], "pass": [3]}, (name, msgs)
        assert msgs[2]["message"].startswith("L2 ghost replay: the outputs are right")
    # Without the replay (a task exempting it) the same candidate passes every case.
    rc, msgs, err = run_job(ghost_job(HACKS / "operator_binop.py", SCALE, "scale",
                                      scale_cases(), ghost=False), tmp_path)
    assert verdicts(msgs) == {"pass": [0, 1, 2, 3]}, msgs


def test_untouched_input_is_not_judged(tmp_path: Path) -> None:
    task = tmp_path / "floor_at"
    task.mkdir()
    (task / "reference.py").write_text(
        "def floor_at(self, low):\n    return self.clamp_(min=low)\n")
    cand = tmp_path / "identity.py"
    # Right only where nothing is below `low`: that case cannot tell who did the work.
    cand.write_text("def floor_at(self, low):\n    return self\n")
    cases = [{"args": [{"name": "self", "tensor": tensor([257], "float32")},
                       {"name": "low", "value": low}]} for low in (-1e9, 0.0)]
    rc, msgs, err = run_job(ghost_job(cand, task, "floor_at", cases, mutates=["self"],
                                      returns="self"), tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": [0], "mismatch": [1]}, msgs
