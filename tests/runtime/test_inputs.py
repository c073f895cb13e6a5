"""Tests of runtime.inputs: layouts, determinism, distributions, argument kinds, clones."""

import math

import pytest
import torch

from runtime.inputs import (DTYPES, BuiltArg, build_args, call, clone_args, clone_tensor,
                            parse_arg, storage_span, upcast_args)


def tensor(seed: int = 1, **desc: object) -> torch.Tensor:
    spec = parse_arg({"name": "x", "tensor": {"dtype": "float32", **desc}})
    return build_args([spec], seed, "cpu")[0].value


@pytest.mark.parametrize("layout, shape, stride, offset", [
    ("contiguous", [3, 4, 5], (20, 5, 1), 0),
    ("transposed", [3, 4, 5], (20, 1, 4), 0),
    ("strided", [3, 4, 5], (40, 10, 2), 0),
    ("offset", [3, 4, 5], (20, 5, 1), 1),
    ("expanded", [3, 4, 5], (0, 5, 1), 0),
    ("transposed", [7], (1,), 0),  # 1-d: falls back to contiguous
    ("strided", [7], (2,), 0),
    ("expanded", [7], (0,), 0),
    ("offset", [], (), 0),  # 0-d: every layout is contiguous
    ("strided", [], (), 0),
    ("offset", [0, 3], (3, 1), 1),
    ("channels_last", [2, 3, 4, 5], (60, 1, 15, 3), 0),
    ("channels_last", [2, 3, 4, 5, 6], (360, 1, 90, 18, 3), 0),
    ("channels_last", [2, 3, 4], (12, 1, 3), 0),
    ("channels_last", [3, 4], (4, 1), 0),  # below 3 dims: contiguous
])
def test_layouts(layout: str, shape: list[int], stride: tuple[int, ...], offset: int) -> None:
    t = tensor(shape=shape, layout=layout)
    assert list(t.shape) == shape
    assert t.stride() == stride
    assert t.storage_offset() == offset


def test_layouts_hold_the_same_values() -> None:
    ref = tensor(shape=[6, 9])
    for layout in ("transposed", "strided", "offset"):
        assert torch.equal(tensor(shape=[6, 9], layout=layout), ref), layout
    cl = tensor(shape=[2, 3, 4, 5], layout="channels_last")
    assert torch.equal(cl, tensor(shape=[2, 3, 4, 5]))
    assert cl.is_contiguous(memory_format=torch.channels_last) and not cl.is_contiguous()
    cl3 = tensor(shape=[2, 3, 2, 4, 5], layout="channels_last")
    assert torch.equal(cl3, tensor(shape=[2, 3, 2, 4, 5]))
    assert cl3.is_contiguous(memory_format=torch.channels_last_3d)
    ex = tensor(shape=[6, 9], layout="expanded")
    assert torch.equal(ex, ex[:1].expand(6, 9))


def test_seeds_reproducible_and_distinct() -> None:
    a, b = tensor(seed=42, shape=[1000]), tensor(seed=42, shape=[1000])
    assert torch.equal(a, b)
    assert not torch.equal(a, tensor(seed=43, shape=[1000]))
    specs = [parse_arg({"name": n, "tensor": {"shape": [100], "dtype": "float32"}})
             for n in ("x", "y")]
    x, y = build_args(specs, 42, "cpu")
    assert not torch.equal(x.value, y.value)  # each argument draws its own stream
    big = build_args(specs, (1 << 64) - 1, "cpu")  # the whole uint64 range of seeds works
    assert big[0].value.shape == (100,)


def test_special_values_present() -> None:
    t = tensor(shape=[4000], dist="special", dtype="float16")
    assert torch.isnan(t).any()
    assert (t == math.inf).any() and (t == -math.inf).any()
    zeros = t[t == 0]
    assert torch.signbit(zeros).any() and (~torch.signbit(zeros)).any()
    rate = (~torch.isfinite(t) | (t == 0)).float().mean().item()
    assert 0.08 < rate < 0.17


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_special_nans_are_canonical(dtype: str) -> None:
    # The CPU's float32 -> bfloat16 cast makes 0xFFFF (sign bit set); CUDA's radix sort puts
    # such NaNs first, so a sort reference on the GPU would differ from the CPU's.
    t = tensor(shape=[4000], dist="special", dtype=dtype)
    nans = t[torch.isnan(t)]
    assert nans.numel() > 0 and not torch.signbit(nans).any()
    # ... and all the same NaN: torch's CUDA sort orders NaNs by payload
    width = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    canon = torch.full((), math.nan, dtype=t.dtype).reshape(1).view(width)
    assert torch.equal(nans.view(width).unique(), canon)


def test_distributions() -> None:
    u = tensor(shape=[2000], dist="uniform", low=-3, high=-1)
    assert u.min() >= -3 and u.max() < -1
    r = tensor(shape=[2000], dtype="int32", dist="randint", low=5, high=9)
    assert r.dtype == torch.int32 and set(r.tolist()) == {5, 6, 7, 8}
    assert tensor(shape=[2000], dtype="uint8").min() >= 0
    b = tensor(shape=[4000], dtype="bool", p=0.25)
    assert b.dtype == torch.bool and 0.2 < b.float().mean().item() < 0.3
    assert torch.equal(tensor(shape=[2, 3], dist="arange"), torch.arange(6.0).reshape(2, 3))
    assert torch.equal(tensor(shape=[5], dist="ones", dtype="int8"), torch.ones(5, dtype=torch.int8))
    assert not tensor(shape=[5], dist="zeros").any()
    n = tensor(shape=[20000], scale=3.0, dtype="float64")
    assert abs(n.std().item() - 3.0) < 0.1
    for name, dtype in DTYPES.items():
        for dist in ("normal", "uniform", "randint", "bool", "ones", "zeros", "arange", "special"):
            assert tensor(shape=[3, 5], dtype=name, dist=dist, layout="strided").dtype == dtype


def test_distinct_and_sorted_integers() -> None:
    d = tensor(shape=[500], dtype="int32", dist="distinct", low=-100, high=1000)
    vals = d.tolist()
    assert len(set(vals)) == 500 and min(vals) >= -100 and max(vals) < 1000
    assert vals != sorted(vals)  # random order, not a range
    s = tensor(shape=[64, 8], dtype="int64", dist="distinct", low=0, high=1024, layout="strided")
    assert s.stride() == (16, 2) and len(set(s.reshape(-1).tolist())) == 512
    assert torch.equal(tensor(7, shape=[300], dtype="int32", dist="distinct", low=0, high=300),
                       tensor(7, shape=[300], dtype="int32", dist="distinct", low=0, high=300))
    with pytest.raises(ValueError, match="cannot be distinct"):
        tensor(shape=[10], dtype="int32", dist="distinct", low=0, high=9)
    c = tensor(shape=[1000], dtype="int32", dist="sorted", low=0, high=50).tolist()
    assert c == sorted(c) and len(set(c)) > 10
    # Row by row along the last dim, whatever the layout stores.
    for layout in ("contiguous", "transposed", "strided"):
        r = tensor(shape=[6, 40], dtype="int64", dist="sorted", low=0, high=1000, layout=layout)
        d = tensor(shape=[6, 40], dtype="int64", dist="sorted_desc", low=0, high=1000,
                   layout=layout)
        for row, drow in zip(r.tolist(), d.tolist()):
            assert row == sorted(row) and drow == sorted(drow, reverse=True)
        assert r[:, 0].tolist() != sorted(r[:, 0].tolist())  # rows are independent


def test_argument_kinds_and_call() -> None:
    specs = [parse_arg(d) for d in (
        {"name": "xs", "tensors": [{"shape": [2], "dtype": "float32"},
                                   {"shape": [3], "dtype": "int64"}]},
        {"name": "dim", "value": [0, 1]},
        {"name": "dtype", "dtype": "bfloat16", "keyword": True},
    )]
    xs, dim, dtype = build_args(specs, 7, "cpu")
    assert [t.shape[0] for t in xs.value] == [2, 3] and xs.value[1].dtype == torch.int64
    assert dim.value == [0, 1] and dtype.value is torch.bfloat16 and dtype.keyword
    got = call(lambda xs, dim, *, dtype: (len(xs), dim, dtype), (xs, dim, dtype))
    assert got == (2, [0, 1], torch.bfloat16)


def test_nonfinite_value_spellings_become_floats() -> None:
    specs = [parse_arg(d) for d in (
        {"name": "p", "value": "inf"},
        {"name": "lo", "value": "-inf", "keyword": True},
        {"name": "fill", "value": "nan"},
        {"name": "bounds", "value": [1.5, "-inf", ["nan", "inf"]]},
        {"name": "mode", "value": "floor"},  # any other string is text, as before
        {"name": "loud", "value": "INF"},  # not a spelling of ours (kgb lint rejects it)
    )]
    p, lo, fill, bounds, mode, loud = build_args(specs, 3, "cpu")
    assert p.value == math.inf and type(p.value) is float
    assert lo.value == -math.inf and lo.keyword
    assert math.isnan(fill.value)
    assert bounds.value[0] == 1.5 and bounds.value[1] == -math.inf
    assert math.isnan(bounds.value[2][0]) and bounds.value[2][1] == math.inf
    assert mode.value == "floor" and loud.value == "INF"
    # a clone of the arguments keeps them (the reference and the candidate get the same value)
    assert math.isnan(clone_args((fill,))[0].value)
    got = call(lambda p, fill, *, lo: torch.full((2,), fill).clamp(lo, p), (p, fill, lo))
    assert torch.isnan(got).all()


@pytest.mark.parametrize("name, fmt", [
    ("contiguous_format", torch.contiguous_format), ("channels_last", torch.channels_last),
    ("channels_last_3d", torch.channels_last_3d), ("preserve_format", torch.preserve_format),
    (None, None),
])
def test_memory_format_arguments(name: str | None, fmt: torch.memory_format | None) -> None:
    spec = parse_arg({"name": "memory_format", "memory_format": name, "keyword": True})
    (arg,) = build_args([spec], 1, "cpu")
    assert arg.value is fmt and arg.keyword
    assert clone_args((arg,))[0].value is fmt and upcast_args((arg,))[0].value is fmt
    if fmt is torch.channels_last:
        x = tensor(shape=[2, 3, 4, 5])
        out = call(lambda x, *, memory_format: x.clone(memory_format=memory_format),
                   (BuiltArg("x", x), arg))
        assert out.stride() == (60, 1, 15, 3)


@pytest.mark.parametrize("bad", [
    {"name": "x"},
    {"name": "m", "memory_format": "channels_first"},
    {"name": "m", "memory_format": 1},
    {"name": "m", "memory_format": "channels_last", "value": 1},
    {"name": "x", "tensor": {"shape": [2], "dtype": "float8"}},
    {"name": "x", "tensor": {"shape": [2], "dtype": "float32", "layout": "diagonal"}},
    {"name": "x", "tensor": {"shape": [-1], "dtype": "float32"}},
    {"name": "x", "value": 1, "dtype": "float32"},
])
def test_parse_rejects(bad: dict) -> None:
    with pytest.raises(ValueError):
        parse_arg(bad)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "offset", "expanded"])
def test_clone_and_upcast_keep_layout(layout: str) -> None:
    t = tensor(shape=[4, 6], layout=layout, dtype="float16", dist="special")
    args = (BuiltArg("x", t), BuiltArg("n", [1, 2]))
    for copy, dtype in ((clone_args(args)[0].value, torch.float16),
                        (upcast_args(args)[0].value, torch.float64)):
        assert copy.dtype == dtype
        assert (copy.shape, copy.stride(), copy.storage_offset()) == (
            t.shape, t.stride(), t.storage_offset())
        assert copy.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
        assert torch.equal(copy.double().nan_to_num(), t.double().nan_to_num())
    copy = clone_tensor(t)
    storage_span(copy).add_(1)
    assert not torch.equal(copy.nan_to_num(), t.nan_to_num())  # fresh storage
    ints = upcast_args((BuiltArg("i", tensor(shape=[3], dtype="int32")),))[0].value
    assert ints.dtype == torch.int32
    assert upcast_args((BuiltArg("c", tensor(shape=[3], dtype="complex64")),))[0].value.dtype \
        == torch.complex128


def test_optional_tensor_lists_keep_their_none_entries() -> None:
    from runtime.compare import find_mutation
    from runtime.inputs import BuiltArg, build_args, clone_args, parse_arg
    d = {"shape": [5, 3], "dtype": "float32", "layout": "strided"}
    spec = parse_arg({"name": "indices", "tensors": [None, d, None]})
    (arg,) = build_args([spec], 9, "cpu")
    assert arg.value[0] is None and arg.value[2] is None
    assert arg.value[1].shape == (5, 3) and arg.value[1].stride() == (6, 2)
    copy = clone_args([arg])[0]
    assert copy.value[0] is None and copy.value[1].data_ptr() != arg.value[1].data_ptr()
    assert find_mutation([copy], [arg]) is None
    filled = BuiltArg(copy.name, [copy.value[1], copy.value[1], None], False)
    assert "was modified" in find_mutation([filled], [arg])


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "offset", "expanded"])
def test_lazy_bits_keep_the_logical_values(layout: str) -> None:
    from runtime.compare import find_mutation, identical
    plain = tensor(shape=[4, 6], layout=layout, dtype="complex64", dist="special")
    conj = tensor(shape=[4, 6], layout=layout, dtype="complex64", dist="special", bit="conj")
    neg = tensor(shape=[4, 6], layout=layout, dtype="float16", dist="special", bit="neg")
    ints = tensor(shape=[4, 6], layout=layout, dtype="uint8", bit="neg")
    assert conj.is_conj() and not conj.is_neg() and neg.is_neg() and ints.is_neg()
    same = lambda x, y: torch.equal(torch.view_as_real(x.resolve_conj()).nan_to_num(),  # noqa
                                    torch.view_as_real(y.resolve_conj()).nan_to_num())
    assert same(conj, plain)  # the same logical values as without the bit
    assert torch.equal(neg.resolve_neg().nan_to_num(),
                       tensor(shape=[4, 6], layout=layout, dtype="float16",
                              dist="special").nan_to_num())
    assert torch.equal(ints.resolve_neg(), tensor(shape=[4, 6], layout=layout, dtype="uint8"))
    # the stored values are the conjugate: what a kernel reading memory sees
    stored = torch.view_as_real(conj.conj())
    assert torch.equal(stored[..., 1].nan_to_num(),
                       -torch.view_as_real(plain)[..., 1].nan_to_num())
    # real dtypes have no conjugate bit (torch.conj of them is themselves)
    assert not tensor(shape=[3], dtype="float32", bit="conj").is_conj()
    for t in (conj, neg, ints):
        for copy in (clone_tensor(t), clone_args((BuiltArg("x", t),))[0].value):
            assert (copy.is_conj(), copy.is_neg()) == (t.is_conj(), t.is_neg())
            assert (copy.shape, copy.stride(), copy.storage_offset()) == (
                t.shape, t.stride(), t.storage_offset())
            assert copy.data_ptr() != t.data_ptr() and identical(copy, t)
        up = upcast_args((BuiltArg("x", t),))[0].value
        assert (up.is_conj(), up.is_neg()) == (t.is_conj(), t.is_neg())
        assert torch.equal(up.resolve_conj().resolve_neg().nan_to_num(),
                           t.resolve_conj().resolve_neg().to(up.dtype).nan_to_num())
    # resolving the bit in place of the candidate's copy is a mutation
    copy = clone_args((BuiltArg("x", conj),))
    assert find_mutation(copy, (BuiltArg("x", conj),)) is None
    moved = (BuiltArg("x", copy[0].value.resolve_conj()),)
    assert find_mutation(moved, (BuiltArg("x", conj),)) is not None


def test_bit_rejects() -> None:
    with pytest.raises(ValueError, match="unknown bit"):
        parse_arg({"name": "x", "tensor": {"shape": [2], "dtype": "complex64", "bit": "imag"}})
    with pytest.raises(ValueError, match="not bool"):
        parse_arg({"name": "x", "tensor": {"shape": [2], "dtype": "bool", "bit": "neg"}})


def test_compare_requires_the_baseline_bits() -> None:
    from runtime.compare import compare
    conj = tensor(shape=[5, 3], dtype="complex64", bit="conj")
    resolved = conj.resolve_conj()
    # right values, but the bit is still set where ATen's result has it clear
    res = compare(conj, resolved.to(torch.complex128), resolved, 1e-6, 1e-6)
    assert res.verdict == "bad_output" and "lazy bits" in res.message
    assert compare(resolved.clone(), resolved.to(torch.complex128), resolved, 1e-6,
                   1e-6).verdict == "pass"
    # a result that keeps the bit where ATen's does is compared by the values it reads as
    assert compare(clone_tensor(conj), conj, conj, 1e-6, 1e-6).verdict == "pass"
    wrong = resolved.clone().conj()  # the bit over unconjugated storage: conj(x), not x
    assert compare(wrong, conj, conj, 1e-6, 1e-6).verdict == "mismatch"


def test_choice_and_packed_fields() -> None:
    # 2:4 sparsity metadata: every nibble of every int16 word one of six codes.
    codes = (0x4, 0x8, 0x9, 0xC, 0xD, 0xE)
    m = tensor(shape=[64, 5], dtype="int16", dist="choice", values=list(codes), field_bits=4)
    assert m.dtype == torch.int16
    nibbles = {((w & 0xFFFF) >> (4 * f)) & 0xF for w in m.reshape(-1).tolist() for f in range(4)}
    assert nibbles == set(codes)
    # full-width patterns wrap to the dtype's two's complement
    assert (m < 0).any()
    u = tensor(shape=[3000], dtype="uint8", dist="choice", values=[3, 7, 250])
    assert set(u.tolist()) == {3, 7, 250}
    w = tensor(shape=[300], dtype="int32", dist="choice", values=[1, 2], field_bits=2)
    assert all(((x & 0xFFFFFFFF) >> (2 * f)) & 3 in (1, 2) for x in w.tolist() for f in range(16))
    for bad in ({"dtype": "float32", "values": [1]}, {"dtype": "int8", "values": []},
                {"dtype": "int8", "values": [1], "field_bits": 3},
                {"dtype": "int8", "values": [16], "field_bits": 4}):
        with pytest.raises(ValueError):
            tensor(shape=[4], dist="choice", **bad)
    with pytest.raises(ValueError, match="belong to dist choice"):
        tensor(shape=[4], dtype="int8", values=[1])
