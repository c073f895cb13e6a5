"""The shipped ATen solutions registered as PyTorch's own ATen kernels (torch.library).

Used as a PyTorch backend, the way the paper's harness and FlagGems use Triton kernels, each
entry of a solution is registered over the ATen overload its signature names, and then every
torch call of that overload, the solution's own included, is the solution: a solution of
`item` that converts its result with `float(t)` calls aten::item again, forever. kgb calls the
entries directly and never sees it. This test does what such a backend does:

- kgb itself emits each task's job (the cases, seeds and tolerances of `kgb eval`): a stand-in
  for the worker's Python records the job line that kgb sends it (docs/protocol.md);
- for each call, every registrable entry of the task is registered with
  `torch.library.Library("aten", "IMPL")` for the device's key (CPU) over its overload, the
  entry is called as `torch.ops.aten.<op>.<overload>`, and the registration is destroyed
  before the call returns: the reference, which runs after the call, uses ATen's own kernel,
  and no task can leak into another (the dispatcher's kernels of every overload are compared
  before and after each task);
- the call must reach the entry's own registered kernel (the dispatcher routed it there), and
  no registered kernel of the task may be entered while one runs: a solution that dispatches
  back to its own op would recurse in a backend (one call alone is let through: the Triton
  CPU interpreter's write-back of a launch's argument onto itself, see interpreter_self_copy);
- runtime.evaluator.Evaluator judges each case as kgb eval does (values against the reference,
  structure, aliasing, the alloc/random/scalar/view kinds' checks), without the L2 ghost
  replay (it re-runs the candidate with launches skipped; not what this test is about).

The overloads that cannot be registered, each with its reason, are in NOT_REGISTRABLE; the
test checks each reason that it can still holds.

By default each entry runs its first two cases and its first case with an empty tensor and
with a 0-d tensor: 655 of the 23963 cases of registrable entries (24729 in all), 60-70 s for the
whole file on the 2-core development machine (`time nice -n 10 .venv/bin/python -m pytest -q`
on this file, the job capture 5 s of it). `KGB_ATEN_LIBRARY_CASES=all` runs every case: 47
minutes there (measured with this file's registration code in a script, before it became this
test, on the shared machine under nice).
`KGB_ATEN_LIBRARY_PLATFORM=cuda` runs it on a GPU instead: CUDA tensors, compiled Triton, the
solutions registered for the CUDA key.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch

from runtime.inputs import call, clone_args
from runtime.evaluator import Evaluator
from runtime.job import parse_job
from runtime.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
ATEN = ROOT / "tasks" / "aten"
ALL_CASES = os.environ.get("KGB_ATEN_LIBRARY_CASES") == "all"
# interpreter (the default: CPU tensors, Triton's interpreter) or cuda (GPU tensors, compiled
# Triton: the backend's real setting, for a run on a GPU machine)
PLATFORM = os.environ.get("KGB_ATEN_LIBRARY_PLATFORM", "interpreter")
# The dispatch key whose kernel the solution replaces: the device's.
KEY = {"interpreter": "CPU", "cuda": "CUDA"}[PLATFORM]
if PLATFORM == "cuda":
    os.environ["TRITON_INTERPRET"] = "0"  # conftest.py turns the interpreter on for every test
FIRST_CASES = 2  # per entry, besides the first empty-tensor and the first 0-d case

_JIT_ONLY = ("a TorchScript operator (torch/csrc/jit/runtime/register_prim_ops.cpp and "
             "register_special_ops.cpp), not a dispatcher operator: torch.ops.aten reaches it "
             "through the JIT, which calls other ATen ops, and a kernel registered under its "
             "name is never called")
_HOST_IS_DEVICE = (
    "on the CPU the host is the device: the only conversion of a tensor to a Python number "
    "that the static scan allows (float(t), int(t), bool(t), complex(t)) is aten::item, "
    "which calls aten::_local_scalar_dense; registered as the CPU kernel of either, the "
    "solution's last step calls itself. On a GPU the solution converts a host copy, whose "
    "conversion is the CPU's kernel, not the registered device kernel. Tensor.tolist() reads "
    "the number without dispatch but the scan bans it")
# Overload (as the signature names it) -> why no solution can be registered over it here.
NOT_REGISTRABLE: dict[str, str] = {
    "index.Tensor_hacked_twin": _JIT_ONLY,
    "index_put_.hacked_twin": _JIT_ONLY,
    "_index_put_impl_.hacked_twin": _JIT_ONLY,
    "copy_.Tensor": _JIT_ONLY,
    "copy_.int": _JIT_ONLY,
    "copy_.float": _JIT_ONLY,
    "to.prim_Device": _JIT_ONLY,
    "to.prim_dtype": _JIT_ONLY,
    "to.prim_other": _JIT_ONLY,
    "as_strided": (
        "the primitive ATen makes strided views with: expand, select, narrow, transpose, "
        "permute and unfold all call aten::as_strided, so a kernel for it cannot be built of "
        "other views, and the one other way to set sizes and strides over a storage "
        "(Tensor.set_) is banned by the static scan"),
}
if PLATFORM == "interpreter":
    NOT_REGISTRABLE.update({"item": _HOST_IS_DEVICE, "_local_scalar_dense": _HOST_IS_DEVICE})

# The worker's stand-in: answers kgb's protocol far enough to receive the job, records it, and
# reports a fatal load error (kgb stores that in the test's own store and moves on).
_SHIM = """#!{python}
import os, sys
if sys.argv[1:] != ["-P", "-m", "runtime.worker"]:
    os.execv({python!r}, [{python!r}] + sys.argv[1:])
sys.stdout.write('{{"type": "hello", "protocol": 1}}\\n')
sys.stdout.flush()
line = sys.stdin.buffer.readline()
with open(os.path.join({jobs!r}, "%d.json" % os.getpid()), "wb") as f:
    f.write(line)
sys.stdout.write('{{"type": "fatal", "stage": "load", "verdict": "import_error", '
                 '"message": "job recorded by tests/runtime/test_aten_library.py"}}\\n')
sys.exit(1)
"""


def aten_tasks() -> list[str]:
    return sorted(p.parent.name for p in ATEN.glob("*/task.json"))


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """op -> the job line kgb eval sends for the op's shipped solution, parsed as JSON."""
    subprocess.run(["make", "-s", "build/kgb"], cwd=ROOT, check=True, capture_output=True)
    tmp = tmp_path_factory.mktemp("aten-jobs")
    (tmp / "jobs").mkdir()
    shim = tmp / "python"
    shim.write_text(_SHIM.format(python=sys.executable, jobs=str(tmp / "jobs")))
    shim.chmod(0o755)
    p = subprocess.run([str(ROOT / "build" / "kgb"), "-q", "eval", "--source", "aten",
                        "--platform", PLATFORM, "--python", str(shim), "--sandbox=off",
                        "--split", "1", "-j", "2", "--force", "--store", str(tmp / "s.db")],
                       cwd=tmp, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    out: dict[str, dict[str, Any]] = {}
    for f in (tmp / "jobs").iterdir():
        job = json.loads(f.read_bytes())
        op = job["task"]["op"]
        if op in out:  # a task checked in several jobs: one job of all its cases
            job["cases"] = sorted(out[op]["cases"] + job["cases"], key=lambda c: c["id"])
        out[op] = job
    assert sorted(out) == aten_tasks()
    return out


def overload_name(signature: str) -> str:
    """`add.Tensor(Tensor self, ...) -> Tensor` -> `add.Tensor`; `clone(...)` -> `clone`."""
    return signature.split("(", 1)[0]


def overload(name: str) -> torch._ops.OpOverload:
    op, _, ov = name.partition(".")
    return getattr(getattr(torch.ops.aten, op), ov or "default")


def _descs(args: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for a in args:
        if "tensor" in a:
            yield a["tensor"]
        for t in a.get("tensors") or ():
            if t is not None:
                yield t


def select(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per entry: the first FIRST_CASES cases, the first with an empty tensor and the first
    with a 0-d tensor (where kernels take other paths: no launch, a scalar); all of them when
    KGB_ATEN_LIBRARY_CASES=all."""
    if ALL_CASES:
        return cases
    seen: dict[str, int] = collections.Counter()
    edges: set[tuple[str, str]] = set()
    picked = []
    for c in cases:
        shapes = [d["shape"] for d in _descs(c["args"])]
        edge = {e for e, hit in (("empty", any(0 in s for s in shapes)),
                                 ("0-d", any(s == [] for s in shapes)))
                if hit and (c["entry"], e) not in edges}
        if seen[c["entry"]] < FIRST_CASES or edge:
            picked.append(c)
            seen[c["entry"]] += 1
            edges |= {(c["entry"], e) for e in edge}
    return picked


class Reentered(RuntimeError):
    """A registered kernel of the task ran while one of them was running."""


class Registration:
    """A task's solution as the kernels of its ATen overloads, registered for one call at a
    time. `problems` collects what the test fails on even when the solution swallowed the
    exception: re-entries, and a kernel called outside a registration's call."""

    def __init__(self, solution: types.ModuleType, overloads: dict[str, str]) -> None:
        self.solution = solution
        self.overloads = overloads  # entry -> overload name
        self.hits: collections.Counter[str] = collections.Counter()
        self.running: str | None = None
        self.calling = False
        self.problems: list[str] = []

    def _kernel(self, entry: str) -> Callable[..., Any]:
        fn = getattr(self.solution, entry)

        def kernel(*args: Any, **kwargs: Any) -> Any:
            if not self.calling:
                msg = f"{self.overloads[entry]}'s kernel ran outside a registered call"
                self.problems.append(msg)
                raise AssertionError(msg)
            if self.running is not None:
                if interpreter_self_copy(self.overloads[entry], args, sys._getframe(1)):
                    return args[0]
                msg = (f"aten::{self.overloads[entry]} was dispatched{self._where()} while "
                       f"the kernel of aten::{self.overloads[self.running]} ran: registered "
                       f"as ATen's kernel, the solution calls its own op")
                self.problems.append(msg)
                raise Reentered(msg)
            self.running = entry
            self.hits[entry] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.running = None
        return kernel

    def _where(self) -> str:
        """` at solution.py:LINE`: the innermost line of the solution on the stack."""
        f: types.FrameType | None = sys._getframe(2)
        while f is not None and f.f_code.co_filename != self.solution.__file__:
            f = f.f_back
        return f" at {os.path.basename(f.f_code.co_filename)}:{f.f_lineno}" if f else ""

    def entry(self, entry: str) -> Callable[..., Any]:
        """What the Evaluator calls as the candidate's entry: the ATen overload, with every
        registrable entry of the task registered for the span of this call only."""
        op = overload(self.overloads[entry])

        def call(*args: Any, **kwargs: Any) -> Any:
            lib = torch.library.Library("aten", "IMPL")
            try:
                with warnings.catch_warnings():
                    # "Overriding a previously registered kernel": that is the point
                    warnings.simplefilter("ignore", UserWarning)
                    for e, name in self.overloads.items():
                        lib.impl(name, self._kernel(e), KEY)
                before = self.hits[entry]
                self.calling = True
                out = op(*args, **kwargs)
            finally:
                self.calling = False
                lib._destroy()
            if self.hits[entry] == before:
                msg = f"aten::{self.overloads[entry]} did not reach its registered kernel"
                self.problems.append(msg)
                raise AssertionError(msg)
            return out
        return call


class InProcess:
    """The runner's calls, made here (kgb's judge sends them to a runner process): the entry
    on copies of the arguments; what it returns and the arguments after the call."""

    def __init__(self, candidate: Any) -> None:
        self.candidate = candidate

    def call(self, entry: str, args: Any, mode: str = "plain",
             recipe: Any = None) -> tuple[Any, Any, dict]:
        mine = clone_args(args)
        return call(getattr(self.candidate, entry), mine), mine, {}

    def replaced(self) -> None:
        return None


_INTERPRETER = os.path.join("triton", "runtime", "interpreter.py")


def interpreter_self_copy(name: str, args: tuple[Any, ...], caller: types.FrameType) -> bool:
    """Is this aten::copy_ the Triton CPU interpreter writing a launched kernel's argument
    back onto itself? After each launch the interpreter copies every argument's storage back
    from its host copy (`_restore_args_dev`: `UntypedStorage.copy_`, which ATen runs as
    aten::copy_), and on the CPU the host copy is the storage itself. ATen's copy_ returns at
    once for a tensor copied onto itself, and on a GPU Triton launches without ATen, so the
    copy_ task lets exactly this call through untouched."""
    if name != "copy_" or not caller.f_code.co_filename.endswith(_INTERPRETER):
        return False
    dst, src = args[0], args[1]
    return (dst.data_ptr() == src.data_ptr() and dst.dtype == src.dtype
            and dst.shape == src.shape and dst.stride() == src.stride())


def kernels(names: list[str]) -> dict[str, str]:
    """The dispatcher's registrations of each overload, to show a task left none behind."""
    return {n: torch._C._dispatch_dump(f"aten::{n}") for n in names}


def test_not_registrable_reasons_hold() -> None:
    """Each JIT-only overload is still outside the dispatcher (were it added, its solution must
    be registered), and every listed overload is one a task's entry names."""
    names = {overload_name(e["signature"])
             for t in aten_tasks()
             for e in json.loads((ATEN / t / "task.json").read_text())["entries"]}
    assert set(NOT_REGISTRABLE) <= names
    for name, why in NOT_REGISTRABLE.items():
        op, _, ov = name.partition(".")
        if why is _JIT_ONLY:
            with pytest.raises(RuntimeError, match="Could not find schema"):
                torch._C._dispatch_find_schema_or_throw(f"aten::{op}", ov)
            assert torch._C._jit_get_schemas_for_operator(f"aten::{op}")
        else:
            torch._C._dispatch_find_schema_or_throw(f"aten::{op}", ov)


@pytest.mark.parametrize("op", aten_tasks())
def test_solution_registered_as_aten_kernel(op: str, jobs: dict[str, dict[str, Any]]) -> None:
    spec = json.loads((ATEN / op / "task.json").read_text())
    overloads = {e["name"]: overload_name(e["signature"]) for e in spec["entries"]
                 if overload_name(e["signature"]) not in NOT_REGISTRABLE}
    if not overloads:
        pytest.skip(f"{op}: {NOT_REGISTRABLE[overload_name(spec['entries'][0]['signature'])]}")
    obj = dict(jobs[op])
    obj.pop("timing", None)  # checked only: the timed cases (a GPU's large shapes) are left out
    obj["cases"] = select([c for c in obj["cases"] if c["entry"] in overloads and not c["timed"]])
    job = replace(parse_job(json.dumps(obj).encode()), ghost=False)
    reg = Registration(load_module(job.candidate, "candidate"), overloads)
    candidate = types.SimpleNamespace(**{e: reg.entry(e) for e in overloads})
    reference = load_module(os.path.join(job.task_dir, "reference.py"), "reference")
    evaluator = Evaluator(job, InProcess(candidate), reference, None)  # type: ignore[arg-type]
    before = kernels(list(overloads.values()))
    failed = []
    for case in job.cases:
        report, _ = evaluator.run(case)
        if report.verdict != "pass":
            axes = next(c["axes"] for c in obj["cases"] if c["id"] == case.id)
            failed.append(f"{case.entry} case {case.id} {json.dumps(axes)}: {report.verdict}: "
                          f"{report.message}")
    assert kernels(list(overloads.values())) == before, "a registration outlived its call"
    if reg.problems:
        pytest.fail("\n".join(dict.fromkeys(reg.problems)), pytrace=False)
    if failed:
        pytest.fail(f"{len(failed)} of {len(job.cases)} cases failed:\n" + "\n".join(failed[:10]),
                    pytrace=False)
    assert set(reg.hits) == set(overloads)
