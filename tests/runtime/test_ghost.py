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


PATCH_AT_IMPORT = '''import torch
torch.isfinite = lambda t: torch.ones_like(t, dtype=torch.bool)


def scale(self):
    return self
'''
PATCH_AT_CALL = '''import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def scale(self):
    torch.Tensor.abs = lambda t: t * 0
    x = self.contiguous()
    y = torch.empty_like(x)
    if x.numel():
        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
'''


def test_replaced_harness_functions_are_hacks(tmp_path: Path) -> None:
    """Runtime integrity: with L1's monkey-patch rule allowed away, the worker still sees it."""
    for name, text, want in (("at_import", PATCH_AT_IMPORT, "importing the candidate replaced "
                              "torch.isfinite"),
                             ("at_call", PATCH_AT_CALL, "running the candidate replaced "
                              "torch.Tensor.abs")):
        cand = tmp_path / f"{name}.py"
        cand.write_text(text)
        j = ghost_job(cand, SCALE, "scale", scale_cases())
        j["task"]["allow"] = ["torch", "monkey-patch", "dunder"]
        rc, msgs, err = run_job(j, tmp_path)
        bad = [m for m in msgs if m.get("verdict") == "hack"]
        assert bad and want in bad[0]["message"], (name, msgs, err)
    # The call-time patch: the first case is the hack, the rest are not run.
    assert verdicts(msgs) == {"hack": [0], "skipped": [1, 2, 3]}, msgs


def test_poisoned_empty_poisons_only_uninitialised_memory_and_keeps_triton():
    # The determinism re-run's context: empty and kin get the poison, zeros and full do not
    # (a kernel may rely on them), and Triton launches still run.
    import types

    import torch

    from runtime.ghost import POISONS, poisoned_empty

    mod = types.ModuleType("cand")
    mod.empty = torch.empty  # `from torch import empty` in a candidate
    with poisoned_empty(mod, 1) as launches:
        e = torch.empty(8)
        e2 = mod.empty(8)
        el = torch.empty_like(torch.ones(3))
        ne = torch.ones(2).new_empty(5)
        z = torch.zeros(4)
        f = torch.full((3,), 7.0)
        i = torch.empty(4, dtype=torch.int32)
    assert launches == [0]
    want = POISONS[1][0]
    for t in (e, e2, el, ne):
        assert bool((t == want).all())
    assert bool((z == 0).all()) and bool((f == 7).all())
    assert bool((i == torch.iinfo(torch.int32).min).all())
    # restored afterwards
    assert torch.empty is not None and mod.empty is torch.empty


def test_float8_poisons_differ() -> None:
    # -3e4 is beyond float8_e4m3fn (max 448): the second poison must not become NaN, the first.
    import torch

    from runtime.ghost import _poison

    for dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        a, b = _poison(torch.zeros(4, dtype=dt), 0), _poison(torch.zeros(4, dtype=dt), 1)
        assert torch.isnan(a.float()).all() and torch.isfinite(b.float()).all(), dt
        assert b.float().max() < -400


def test_a_skipped_launch_hands_back_a_kernel_that_launches_nothing() -> None:
    """FlagGems's LibEntry keeps what JITFunction.run returned and launches it directly,
    kernel[grid](*args), at its next call with the same key: in the replay's own process, the
    second replayed call. A skipped launch returned None, the library raised there, and the
    replay failed closed: a hack for every honest LibEntry kernel on the GPU."""
    import types

    import torch
    import triton
    import triton.language as tl

    from runtime import ghost

    @triton.jit
    def ones(x_ptr, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 1.0, mask=offs < n)

    x = torch.zeros(8)
    with ghost.replay(types.ModuleType("candidate"), 0) as launches:
        kernel = ones.run(x, 8, BLOCK=8, grid=(1,), warmup=False)
        kernel[(1,)](x, 8, 8)
        kernel.run(x, 8, 8)
    assert launches == [3] and not x.any()
    ones[(1,)](x, 8, BLOCK=8)  # restored afterwards
    assert x.eq(1).all()
