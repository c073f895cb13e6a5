"""Tests of runtime.compare: tolerance, special values, structure, type, mutation, aliasing."""

import math

import numpy as np
import torch

from runtime.compare import Result, aliases, compare, find_mutation, merge
from runtime.inputs import BuiltArg, build_args, clone_args, parse_arg

ATOL, RTOL = 1e-6, 64 * 2.0**-23  # float32 tolerance from task-format.md


def test_exact_match_passes_with_zero_use() -> None:
    r = torch.randn(100, dtype=torch.float64)
    res = compare(r.float(), r, r.float(), ATOL, RTOL)
    assert res.verdict == "pass" and 0 < res.tol_use < 1
    exact = torch.tensor([1.0, 0.0, -2.0])
    res = compare(exact, exact.double(), exact, 0.0, 0.0)  # 0/0 counts as 0
    assert res == Result("pass", 0.0, 0.0)


def test_one_ulp_beyond_tolerance() -> None:
    ref = torch.tensor([1.0], dtype=torch.float64)
    lim = ATOL + RTOL * 1.0
    k = math.floor(lim / 2.0**-23)  # float32 spacing above 1.0 is 2**-23
    inside = torch.tensor([1.0 + k * 2.0**-23], dtype=torch.float32)
    outside = torch.tensor([np.nextafter(np.float32(inside.item()), np.float32(2))])
    assert compare(inside, ref, inside, ATOL, RTOL).verdict == "pass"
    res = compare(outside, ref, outside, ATOL, RTOL)
    assert res.verdict == "mismatch" and res.bad == 1 and res.first_bad == 0
    assert 1 < res.tol_use < 1.02
    assert "1 of 1 elements" in res.message


def test_nan_and_inf_positions() -> None:
    ref = torch.tensor([1.0, math.nan, math.inf, -math.inf, 2.0], dtype=torch.float64)
    good = ref.float()
    assert compare(good, ref, good, ATOL, RTOL).verdict == "pass"
    moved = torch.tensor([math.nan, 1.0, math.inf, -math.inf, 2.0])
    res = compare(moved, ref, good, ATOL, RTOL)
    assert res.verdict == "mismatch" and res.bad == 2 and res.first_bad == 0
    assert res.tol_use == math.inf
    flipped = torch.tensor([1.0, math.nan, -math.inf, -math.inf, 2.0])
    res = compare(flipped, ref, good, ATOL, RTOL)
    assert res.verdict == "mismatch" and res.first_bad == 2
    finite = torch.tensor([1.0, math.nan, 3e38, -math.inf, 2.0])
    assert compare(finite, ref, good, ATOL, RTOL).verdict == "mismatch"


def test_overflow_of_the_output_dtype_must_be_inf() -> None:
    ref = torch.tensor([70000.0, 1.0], dtype=torch.float64)  # beyond float16's 65504
    good = torch.tensor([math.inf, 1.0], dtype=torch.float16)
    assert compare(good, ref, good, 1e-5, 2**-9).verdict == "pass"
    capped = torch.tensor([65504.0, 1.0], dtype=torch.float16)
    assert compare(capped, ref, good, 1e-5, 2**-9).verdict == "mismatch"


def test_complex_and_integer() -> None:
    ref = torch.tensor([1 + 1j, complex(math.nan, 0)], dtype=torch.complex128)
    c = ref.to(torch.complex64)
    assert compare(c, ref, c, ATOL, RTOL).verdict == "pass"
    off = c.clone()
    off[0] += 1e-3j
    assert compare(off, ref, c, ATOL, RTOL).verdict == "mismatch"
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    assert compare(i, i.long(), i, 0.0, 0.0).verdict == "pass"
    res = compare(i + torch.tensor([0, 1, 0], dtype=torch.int32), i, i, 1.0, 1.0)
    assert res.verdict == "mismatch" and res.first_bad == 1 and res.max_abs_err == 1.0


def test_bad_outputs() -> None:
    r = torch.randn(4, 5, dtype=torch.float64)
    base = r.float()
    cases = {
        "dtype": r.half(),
        "shape": base.reshape(5, 4),
        "torch.Tensor": torch.nn.Parameter(base.clone()),
        "ndarray": base.numpy(),
        "tuple": (base,),
    }
    for word, cand in cases.items():
        res = compare(cand, r, base, ATOL, RTOL)
        assert res.verdict == "bad_output", word
        assert word in res.message or word == "tuple", (word, res.message)
    pair = (base, base.argmax(dim=1))
    ref = (r, r.argmax(dim=1))
    assert compare(pair, ref, pair, ATOL, RTOL).verdict == "pass"
    assert compare(list(pair), ref, pair, ATOL, RTOL).verdict == "bad_output"
    assert compare(pair[:1], ref, pair, ATOL, RTOL).verdict == "bad_output"
    assert compare(None, None, None, ATOL, RTOL).verdict == "pass"
    assert compare(base, None, None, ATOL, RTOL).verdict == "bad_output"
    assert compare(3, 3, 3, 0.0, 0.0).verdict == "pass"
    assert compare(3.0, 3, 3, 0.0, 0.0).verdict == "bad_output"
    assert compare(1.0 + 1e-9, 1.0, 1.0, ATOL, RTOL).verdict == "pass"


def test_merge_keeps_worst() -> None:
    a = Result("mismatch", 2.0, 3.0, 4, 5, "first")
    b = Result("pass", 7.0, 0.5)
    m = merge([b, a, Result("mismatch", 0.0, 1.5, 1, 0, "second")])
    assert (m.verdict, m.message, m.max_abs_err, m.tol_use, m.bad) == (
        "mismatch", "first", 7.0, 3.0, 5)


def built(layout: str = "strided") -> tuple[BuiltArg, ...]:
    specs = [parse_arg({"name": n, "tensor": {"shape": [4, 3], "dtype": "float32",
                                               "layout": layout, "dist": "special"}})
             for n in ("self", "other")]
    return build_args(specs, 9, "cpu")


def test_mutation_detection() -> None:
    pristine = built()
    now = clone_args(pristine)
    assert find_mutation(now, pristine) is None  # NaN positions compare as equal
    now[1].value[0, 0] = 5.0
    assert "'other'" in (find_mutation(now, pristine) or "")
    assert find_mutation(now, pristine, mutates=["other"]) is None
    gap = clone_args(pristine)
    torch.as_strided(gap[0].value, (1,), (1,), 1).fill_(1.0)  # between two strided elements
    assert "'self'" in (find_mutation(gap, pristine) or "")
    signed = (BuiltArg("x", torch.tensor([0.0, math.nan])),)
    flipped = clone_args(signed)
    flipped[0].value[0] = -0.0
    assert find_mutation(flipped, signed) is not None  # bitwise: 0 became -0


def test_aliases() -> None:
    x = torch.randn(5)
    assert aliases(x.add_(1), x)
    assert not aliases(x + 1, x)
    assert not aliases(None, x)


def test_float8_outputs_are_compared_in_float64() -> None:
    # vLLM's fp8 quantisation outputs: the CPU has conversions for float8 but no arithmetic or
    # isfinite, so the checker must work through float64.
    for dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        ref = torch.tensor([0.5, -1.75, 3.0, 0.0], dtype=torch.float64)
        good = ref.to(dt)
        eps = torch.finfo(dt).eps
        assert compare(good, ref, good, 2.0**-9, eps).verdict == "pass"
        off = ref.clone()
        off[1] = -2.5  # far beyond the tolerance in both formats
        bad = off.to(dt)
        res = compare(bad, ref, good, 2.0**-9, eps / 4)
        assert res.verdict == "mismatch" and res.first_bad == 1, dt
        # a NaN where the reference is finite fails
        nan = ref.to(dt)
        nan[0] = float("nan")
        assert compare(nan, ref, good, 2.0**-9, eps).verdict == "mismatch"
