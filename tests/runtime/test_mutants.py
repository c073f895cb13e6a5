"""What `kgb lint --deep` relies on in the runtime: the mutants (runtime.mutants), a job that
stops each entry at its own first failing case (stop_on_fail "entry"), and an entry exempt from
the L2 ghost replay."""

from pathlib import Path

import torch

from runtime.inputs import BuiltArg
from runtime.mutants import apply
from test_ghost import GOOD, HACKS, SCALE, ghost_job, scale_cases
from test_worker import CANDIDATES, add_cases, job, run_job, verdicts


def test_mutant_breaks_returned_tensor_first() -> None:
    out, written = torch.ones(5), torch.ones(3)
    args = (BuiltArg("self", torch.ones(2)), BuiltArg("out", written))
    assert apply("zero", out, args, ["out"], 0.0, 0.0) is out
    assert not out.any() and written.all()  # the returned tensor, not the argument


def test_mutant_reaches_written_arguments_when_nothing_is_returned() -> None:
    # an out= overload that returns None (unsafe_split.Tensor_out): its out tensors are broken
    outs = [torch.ones(4), torch.ones(4)]
    args = (BuiltArg("self", torch.ones(8)), BuiltArg("split_size", 4), BuiltArg("out", outs))
    for mutant in ("zero", "last", "tail", "perturb"):
        outs[0].fill_(1)
        assert apply(mutant, None, args, ["out"], 1e-6, 1e-6) is None
        assert not torch.equal(outs[0], torch.ones(4)), mutant
        assert torch.equal(outs[1], torch.ones(4)) and torch.equal(args[0].value, torch.ones(8))
    # the self argument is never mutated by an output mutant
    assert apply("zero", None, args, [], 0.0, 0.0) is None
    assert args[0].value.all()


def test_mutate_input_reaches_a_list_of_inputs() -> None:
    # the pointer-array batched cuBLAS routines take every input as a list of tensors
    a_list, c_list = [torch.ones(0), torch.ones(3)], [torch.ones(3)]
    args = (BuiltArg("m", 3), BuiltArg("Aarray", a_list), BuiltArg("Carray", c_list))
    apply("mutate_input", None, args, ["Carray"], 0.0, 0.0)
    assert not torch.equal(a_list[1], torch.ones(3))  # the first non-empty input tensor
    assert torch.equal(c_list[0], torch.ones(3))  # the written list is never the input


def test_stop_on_fail_per_entry(tmp_path: Path) -> None:
    # wrong_value.py forgets alpha in add_Tensor (wrong where alpha != 1), add_Scalar is right
    cases = add_cases()
    tensor_ids = [c["id"] for c in cases if c["entry"] == "add_Tensor"]
    scalar_ids = [c["id"] for c in cases if c["entry"] == "add_Scalar"]
    j = job(CANDIDATES / "wrong_value.py", cases)
    j["stop_on_fail"] = "entry"
    rc, msgs, err = run_job(j, tmp_path)
    assert rc == 0, err
    v = verdicts(msgs)
    # add_Tensor's first case (alpha -2.5) fails and the rest of that entry is skipped; every
    # add_Scalar case still runs, where job-wide stopping would have skipped them too
    assert v["mismatch"] == [tensor_ids[0]], v
    assert v["skipped"] == tensor_ids[1:] and v["pass"] == scalar_ids, v
    skipped = next(m for m in msgs if m.get("verdict") == "skipped")
    assert f"case {tensor_ids[0]} of its entry failed" in skipped["message"]
    j["stop_on_fail"] = True
    rc, msgs, err = run_job(j, tmp_path)
    assert verdicts(msgs)["skipped"] == list(range(tensor_ids[0] + 1, len(cases))), msgs
    j["stop_on_fail"] = "case"
    rc, msgs, err = run_job(j, tmp_path)
    assert rc == 3 and "job.stop_on_fail" in msgs[-1]["message"], msgs


def test_ghost_exempt_entry(tmp_path: Path) -> None:
    j = ghost_job(HACKS / "operator_binop.py", SCALE, "scale", scale_cases())
    j["task"]["entries"][0]["ghost"] = False
    rc, msgs, err = run_job(j, tmp_path)
    assert rc == 0, err
    assert verdicts(msgs) == {"pass": [0, 1, 2, 3]}, msgs
    # the task-wide flag and an honest kernel are unaffected
    j = ghost_job(GOOD, SCALE, "scale", scale_cases())
    j["task"]["entries"][0]["ghost"] = True
    rc, msgs, err = run_job(j, tmp_path)
    assert verdicts(msgs) == {"pass": [0, 1, 2, 3]}, msgs


def test_float8_mutants_change_values() -> None:
    # The CPU has no float8 arithmetic: the bump goes through float32.
    for dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        for mutant in ("zero", "last", "tail", "perturb"):
            out = torch.full((300,), 1.5).to(dt)
            apply(mutant, out, (), [], 2.0**-9, 0.125)
            assert not torch.equal(out.view(torch.uint8), torch.full((300,), 1.5).to(dt).view(
                torch.uint8)), (dt, mutant)
