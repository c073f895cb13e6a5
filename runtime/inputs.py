"""Case inputs: tensors built from descriptors, deterministically from the case seed.

Values are drawn on the CPU from a `torch.Generator` seeded from the case seed and the argument
index, laid out in a CPU storage, and only then moved to the device, so the interpreter and the
GPU see identical values. A layout is a view (size, stride, storage offset) over that storage.

Timed cases are the exception: they exist only on a GPU, and their inputs are large (hundreds of
millions of elements, seconds of CPU time each to draw), so they are drawn on the device by the
device's own generator: the same seed gives the same values on every run on that device type.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "DTYPES", "LAYOUTS", "DISTS", "BITS", "MEMORY_FORMATS", "NONFINITE", "TensorDesc", "ArgSpec",
    "BuiltArg", "parse_arg", "build_args", "effective_layout", "make_tensor", "storage_span",
    "strip_bits", "clone_tensor", "clone_args", "upcast_args", "call",
]

# The dtype, layout and distribution names of task-format.md, and nothing else.
DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
    "float64": torch.float64, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool,
    "complex64": torch.complex64, "complex128": torch.complex128,
    # vLLM's fp8 caches and quantised activations. The CPU implements conversions and copies
    # of these, not arithmetic: values are drawn in float32 and converted, and the checker
    # compares them in float64.
    "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
}
LAYOUTS = frozenset({"contiguous", "transposed", "strided", "offset", "expanded",
                     "channels_last"})
# ATen's lazy bits: torch.conj's conjugate bit (complex dtypes; a no-op on others, as in torch)
# and torch._neg_view's negative bit. The logical values stay those drawn: the storage holds
# their conjugate (negation) and the bit undoes it.
BITS = frozenset({"none", "conj", "neg"})
# The values of a `memory_format` argument (ATen's MemoryFormat), by their torch names.
MEMORY_FORMATS: dict[str, torch.memory_format] = {
    "contiguous_format": torch.contiguous_format, "channels_last": torch.channels_last,
    "channels_last_3d": torch.channels_last_3d, "preserve_format": torch.preserve_format,
}
# JSON has no inf or NaN: task.json spells them as these strings in argument values.
NONFINITE: dict[str, float] = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}
DISTS = frozenset({"normal", "uniform", "randint", "bool", "ones", "zeros", "arange", "special",
                   "poison", "distinct", "sorted", "sorted_desc", "choice"})

_MASK64 = (1 << 64) - 1
# task-format.md: "about 1 in 8 values replaced by inf, -inf, nan, 0 or -0".
_SPECIAL_RATE = 1 / 8
_SPECIALS = (float("inf"), float("-inf"), float("nan"), 0.0, -0.0)
# Default randint range when a descriptor gives none: small enough that sums and products of a
# few terms stay exact in every integer dtype and in float32.
_RANDINT_DEFAULT = (-64, 64)


@dataclass(frozen=True)
class TensorDesc:
    """One tensor descriptor of a case (task-format.md, Arguments); `dist` is already defaulted."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    layout: str = "contiguous"
    dist: str = "normal"
    scale: float = 1.0
    low: float | None = None
    high: float | None = None
    p: float = 0.5
    bit: str = "none"
    values: tuple[int, ...] | None = None  # dist choice: the integers drawn from
    field_bits: int | None = None  # dist choice: each element packs fields this wide


@dataclass(frozen=True)
class ArgSpec:
    """One argument of a case: `kind` is tensor, tensors, value, dtype, device or memory_format.
    A `value` has its non-finite spellings ("inf", "-inf", "nan") already turned into floats."""

    name: str
    kind: str
    value: Any
    keyword: bool = False


@dataclass(frozen=True)
class BuiltArg:
    """An argument ready to pass: a tensor, a list of tensors, a JSON value, a torch.dtype, a
    torch.device or a torch.memory_format."""

    name: str
    value: Any
    keyword: bool = False


def _number(d: dict[str, Any], key: str) -> float | None:
    v = d.get(key)
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise ValueError(f"'{key}': expected a number, got {v!r}")
    return v


def _parse_desc(d: Any) -> TensorDesc:
    if not isinstance(d, dict):
        raise ValueError(f"expected a tensor descriptor object, got {d!r}")
    shape = d.get("shape")
    if not isinstance(shape, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise ValueError(f"'shape': expected a list of sizes, got {shape!r}")
    if d.get("dtype") not in DTYPES:
        raise ValueError(f"'dtype': unknown dtype {d.get('dtype')!r}")
    dtype = DTYPES[d["dtype"]]
    layout = d.get("layout", "contiguous")
    if layout not in LAYOUTS:
        raise ValueError(f"'layout': unknown layout {layout!r}")
    default = ("bool" if dtype == torch.bool else
               "normal" if dtype.is_floating_point or dtype.is_complex else "randint")
    dist = d.get("dist", default)
    if dist not in DISTS:
        raise ValueError(f"'dist': unknown distribution {dist!r}")
    scale, p = _number(d, "scale"), _number(d, "p")
    bit = d.get("bit", "none")
    if bit not in BITS or (bit == "neg" and dtype == torch.bool):
        raise ValueError(f"'bit': unknown bit {bit!r}" if bit not in BITS else
                         "'bit': neg needs a numeric dtype, not bool")
    values, field_bits = d.get("values"), d.get("field_bits")
    if dist == "choice":
        if (dtype.is_floating_point or dtype.is_complex or dtype == torch.bool
                or not isinstance(values, list) or not values
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)):
            raise ValueError("dist choice: expected an integer dtype and 'values', a non-empty "
                             f"list of integers, got {d.get('dtype')} and {values!r}")
        width = dtype.itemsize * 8
        if field_bits is not None and (isinstance(field_bits, bool)
                                       or not isinstance(field_bits, int) or field_bits <= 0
                                       or width % field_bits):
            raise ValueError(f"'field_bits': expected a divisor of {width} (the dtype's bits), "
                             f"got {field_bits!r}")
        if field_bits is not None and not all(0 <= v < 1 << field_bits for v in values):
            raise ValueError(f"'values': each must fit in {field_bits} unsigned bits")
        values = tuple(values)
    elif values is not None or field_bits is not None:
        raise ValueError("'values' and 'field_bits' belong to dist choice")
    return TensorDesc(tuple(shape), dtype, layout, dist, 1.0 if scale is None else scale,
                      _number(d, "low"), _number(d, "high"), 0.5 if p is None else p, bit,
                      values, field_bits)


def _floats(v: Any) -> Any:
    """A JSON value with every non-finite spelling ("inf", "-inf", "nan"), in lists too, turned
    into its float, and every {"complex": [re, im]} into a Python complex (JSON has no complex
    numbers; the C and Z cuBLAS routines take complex alpha and beta)."""
    if isinstance(v, str):
        return NONFINITE.get(v, v)
    if isinstance(v, list):
        return [_floats(x) for x in v]
    if isinstance(v, dict) and set(v) == {"complex"}:
        re, im = (_floats(x) for x in v["complex"])
        return complex(re, im)
    return v


def parse_arg(d: Any) -> ArgSpec:
    """Parse one element of a case's `args`; ValueError says what is wrong."""
    if not isinstance(d, dict) or not isinstance(d.get("name"), str):
        raise ValueError(f"expected an argument object with a 'name', got {d!r}")
    name, keyword = d["name"], bool(d.get("keyword", False))
    kinds = [k for k in ("tensor", "tensors", "value", "dtype", "device", "memory_format")
             if k in d]
    if len(kinds) != 1:
        raise ValueError(f"argument '{name}': expected one of tensor, tensors, value, dtype, "
                         "device, memory_format")
    kind = kinds[0]
    try:
        if kind == "tensor":
            return ArgSpec(name, kind, _parse_desc(d[kind]), keyword)
        if kind == "tensors":
            if not isinstance(d[kind], list):
                raise ValueError("'tensors': expected a list")
            # None entries: the absent elements of an optional list (ATen's Tensor?[]).
            return ArgSpec(name, kind, tuple(None if x is None else _parse_desc(x)
                                             for x in d[kind]), keyword)
        if kind == "dtype" and d[kind] is not None and d[kind] not in DTYPES:
            raise ValueError(f"'dtype': unknown dtype {d[kind]!r}")
        if kind == "memory_format" and d[kind] is not None and d[kind] not in MEMORY_FORMATS:
            raise ValueError(f"'memory_format': unknown memory format {d[kind]!r}")
    except ValueError as e:
        raise ValueError(f"argument '{name}': {e}") from None
    if kind == "value":
        return ArgSpec(name, kind, _floats(d[kind]), keyword)
    return ArgSpec(name, kind, d[kind], keyword)


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _generator(seed: int, index: int, sub: int,
               device: str | torch.device = "cpu") -> torch.Generator:
    g = torch.Generator(device=device)
    g.manual_seed(_splitmix64(_splitmix64(_splitmix64(seed & _MASK64) ^ index) ^ sub))
    return g


def _values(desc: TensorDesc, n: int, g: torch.Generator) -> torch.Tensor:
    """`n` values of the descriptor's distribution, 1-D, in its dtype, on the generator's device."""
    dt, dist, dev = desc.dtype, desc.dist, g.device
    wide = dt in (torch.float64, torch.complex128)
    if dist == "special" and not (dt.is_floating_point or dt.is_complex):
        dist = "bool" if dt == torch.bool else "randint"
    if dist == "poison":
        # Storage an op must overwrite (out= arguments): NaN, or the largest integer.
        if dt.is_floating_point or dt.is_complex:
            return torch.full((n,), float("nan"), dtype=dt, device=dev)
        return torch.full((n,), True if dt == torch.bool else torch.iinfo(dt).max, dtype=dt,
                          device=dev)
    if dist in ("ones", "zeros", "arange"):
        make = {"ones": torch.ones, "zeros": torch.zeros}.get(dist)
        v = (make(n, dtype=torch.float64, device=dev) if make
             else torch.arange(n, dtype=torch.int64, device=dev))
        return v.to(dt)
    if dist == "bool":
        return (torch.rand(n, generator=g, dtype=torch.float64, device=dev) < desc.p).to(dt)
    if dist == "choice":
        # Values from a list; with field_bits, every field of each element drawn so (packed
        # codes: 2:4 sparsity metadata, quantisation nibbles), lowest field first. int64 sums,
        # then the dtype's wrap-around, so a full-width pattern becomes its two's complement.
        table = torch.tensor(desc.values, dtype=torch.int64, device=dev)
        fields = dt.itemsize * 8 // desc.field_bits if desc.field_bits else 1
        pick = table[torch.randint(0, len(table), (n, fields), generator=g, device=dev)]
        shifts = torch.arange(fields, dtype=torch.int64, device=dev) * (desc.field_bits or 0)
        words = (pick << shifts).sum(-1)
        if dt.itemsize == 8:
            return words  # 64 fields of 1 bit or 16 of 4 may exceed int64: they wrapped already
        return words.bitwise_and((1 << (dt.itemsize * 8)) - 1).to(dt)
    m = 2 * n if dt.is_complex else n  # complex: real and imaginary parts drawn alike
    gen = torch.float64 if wide else torch.float32
    if dist == "uniform":
        low = 0.0 if desc.low is None else desc.low
        high = 1.0 if desc.high is None else desc.high
        v = torch.rand(m, generator=g, dtype=gen, device=dev) * (high - low) + low
    elif dist in ("randint", "distinct", "sorted", "sorted_desc"):
        lo, hi = _RANDINT_DEFAULT if dt != torch.bool else (0, 2)
        if dt == torch.uint8:
            lo = 0
        lo = lo if desc.low is None else int(desc.low)
        hi = hi if desc.high is None else int(desc.high)
        if dist == "distinct":
            # No value twice (slot mappings, block tables: vLLM's kernels assume it), in
            # random order.
            if hi - lo < m:
                raise ValueError(f"dist distinct: {m} values cannot be distinct in "
                                 f"[{lo}, {hi})")
            v = torch.randperm(hi - lo, generator=g, dtype=torch.int64, device=dev)[:m] + lo
        else:  # sorted and sorted_desc are ordered per row in make_tensor
            v = torch.randint(lo, hi, (m,), generator=g, dtype=torch.int64, device=dev)
    else:  # normal, special
        v = torch.randn(m, generator=g, dtype=gen, device=dev) * desc.scale
        if dist == "special":
            hit = torch.rand(m, generator=g, device=dev) < _SPECIAL_RATE
            pick = torch.randint(0, len(_SPECIALS), (m,), generator=g, device=dev)
            v = torch.where(hit, torch.tensor(_SPECIALS, dtype=gen, device=dev)[pick], v)
    if dt.is_complex:
        v = torch.view_as_complex(v.to(gen).reshape(n, 2))
    v = v.to(dt)
    if dist == "special" and dt.is_floating_point:
        # Every NaN the dtype's canonical quiet NaN: the CPU's float32 -> bfloat16 conversion
        # yields 0xFFFF, a NaN with the sign bit set, which CUDA's radix sort (torch.sort of
        # long rows, via CUB) orders before -inf; and torch's CUDA sort of short rows orders
        # NaNs by payload (0x7FC0 before 0x7FFF), so ties among NaNs would not keep their
        # original order. Either way the GPU reference would disagree with the CPU one (seen
        # on the H200: sort cases 63 and 75).
        # (float8 has no isnan on the CPU; its NaNs come from one conversion, so one pattern.)
        if dt.itemsize > 1:
            v = torch.where(torch.isnan(v), torch.full((), float("nan"), dtype=dt, device=dev), v)
    return v


def _contiguous_strides(shape: Sequence[int]) -> list[int]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return strides[::-1]


def effective_layout(shape: Sequence[int], layout: str) -> str:
    """The layout actually built: 0-d tensors, 1-d `transposed` and `channels_last` below 3 dims
    fall back to contiguous."""
    if (not shape or (layout == "transposed" and len(shape) < 2)
            or (layout == "channels_last" and len(shape) < 3)):
        return "contiguous"
    return layout


def make_tensor(desc: TensorDesc, g: torch.Generator, device: str | torch.device) -> torch.Tensor:
    """Draw the values (on the generator's device), lay them out in a storage, move the storage
    to `device`, view it there."""
    shape, layout = list(desc.shape), effective_layout(desc.shape, desc.layout)
    src = [1] + shape[1:] if layout == "expanded" else shape
    n = 1
    for s in src:
        n *= s
    values = _values(desc, n, g).reshape(src)
    if desc.dist in ("sorted", "sorted_desc") and values.dim():
        # Ordered along the last dim, row by row (cumulative lengths; MInference's per-head
        # ascending vertical and descending slash indexes).
        values = torch.sort(values, dim=-1, descending=desc.dist == "sorted_desc").values
    conj = desc.bit == "conj" and desc.dtype.is_complex
    if conj:
        values = values.conj_physical()
    elif desc.bit == "neg":
        values = -values  # integers wrap, and the negative bit wraps them back
    stride, offset = _contiguous_strides(shape), 0
    if layout == "transposed":
        values = values.transpose(-1, -2).contiguous()
        stride = _contiguous_strides(values.shape)
        stride[-1], stride[-2] = stride[-2], stride[-1]
    elif layout == "strided":
        wide = torch.zeros(shape[:-1] + [2 * shape[-1]], dtype=desc.dtype, device=g.device)
        wide[..., ::2] = values
        values, stride = wide, _contiguous_strides(wide.shape)[:-1] + [2]
    elif layout == "offset":
        values, offset = torch.cat([torch.zeros(1, dtype=desc.dtype, device=g.device),
                                    values.reshape(-1)]), 1
    elif layout == "expanded":
        stride = [0] + _contiguous_strides(src)[1:]
    elif layout == "channels_last":
        # dim 1 stored innermost: torch's channels_last (4-d) and channels_last_3d (5-d)
        order = [0] + list(range(2, len(shape))) + [1]
        values = values.permute(order).contiguous()
        stride = [0] * len(shape)
        for d, st in zip(order, _contiguous_strides(values.shape)):
            stride[d] = st
    storage = values.reshape(-1).to(device)
    t = torch.as_strided(storage, shape, stride, offset)
    if conj:
        return t.conj()
    return torch._neg_view(t) if desc.bit == "neg" else t


def build_args(specs: Sequence[ArgSpec], seed: int, device: str | torch.device,
               draw_on_device: bool = False) -> tuple[BuiltArg, ...]:
    """Build every argument of a case; tensor `i` (element `j` of a list) draws from (seed, i, j),
    on the CPU, or on `device` itself when `draw_on_device` (timed cases, see above)."""
    out = []
    where = device if draw_on_device else "cpu"
    for i, spec in enumerate(specs):
        if spec.kind == "tensor":
            value: Any = make_tensor(spec.value, _generator(seed, i, 0, where), device)
        elif spec.kind == "tensors":
            value = [None if d is None else make_tensor(d, _generator(seed, i, j, where), device)
                     for j, d in enumerate(spec.value)]
        elif spec.kind == "dtype":
            value = None if spec.value is None else DTYPES[spec.value]
        elif spec.kind == "device":
            value = torch.device(device)  # the platform's device, whatever the spec says
        elif spec.kind == "memory_format":
            value = None if spec.value is None else MEMORY_FORMATS[spec.value]
        else:
            value = copy.deepcopy(spec.value)
        out.append(BuiltArg(spec.name, value, spec.keyword))
    return tuple(out)


def _span(t: torch.Tensor) -> int | torch.SymInt:
    """Elements of storage from index 0 to the last one the view touches (torch types the
    storage offset int | SymInt: a SymInt under symbolic tracing, which kgb does not use)."""
    if t.numel() == 0:
        return t.storage_offset()
    return t.storage_offset() + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1


def storage_span(t: torch.Tensor) -> torch.Tensor:
    """1-D view of the storage under `t`, from index 0 through its last element (gaps included)."""
    return torch.as_strided(t, (_span(t),), (1,), 0)


def strip_bits(t: torch.Tensor) -> tuple[torch.Tensor, bool, bool]:
    """A view of t's storage as stored (no conjugate or negative bit), and which bits t had."""
    conj, neg = t.is_conj(), t.is_neg()
    if conj:
        t = t.conj()
    if neg:
        t = torch._neg_view(t)
    return t, conj, neg


def clone_tensor(t: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    """Copy onto fresh storage with the same size, strides and storage offset (and gaps), and
    the same lazy bits over the same stored values."""
    t, conj, neg = strip_bits(t)
    span = storage_span(t)
    fresh = span.clone() if dtype is None or dtype == t.dtype else span.to(dtype)
    out = torch.as_strided(fresh, t.shape, t.stride(), t.storage_offset())
    if neg:
        out = torch._neg_view(out)
    return out.conj() if conj and out.is_complex() else out


def _map_args(args: Sequence[BuiltArg],
              fn: Callable[[torch.Tensor], torch.Tensor]) -> tuple[BuiltArg, ...]:
    def one(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return fn(v)
        if isinstance(v, list) and v and all(isinstance(x, torch.Tensor) or x is None for x in v):
            return [None if x is None else fn(x) for x in v]
        return copy.deepcopy(v)
    return tuple(BuiltArg(a.name, one(a.value), a.keyword) for a in args)


def clone_args(args: Sequence[BuiltArg]) -> tuple[BuiltArg, ...]:
    """Layout-preserving copies of every tensor; other values deep-copied."""
    return _map_args(args, clone_tensor)


def restore_args(dst: Sequence[BuiltArg], src: Sequence[BuiltArg]) -> None:
    """Copy src's stored values into dst's storage, in place: dst came from clone_args(src),
    so the two spans have one size. For CUDA-graph timing, whose captured arguments must keep
    their addresses."""
    def spans(v: Any) -> list[torch.Tensor]:
        if isinstance(v, torch.Tensor):
            return [storage_span(strip_bits(v)[0])]
        if isinstance(v, list):
            return [storage_span(strip_bits(x)[0]) for x in v if isinstance(x, torch.Tensor)]
        return []
    for d, s in zip(dst, src):
        for a, b in zip(spans(d.value), spans(s.value)):
            a.copy_(b)


def _wide(dtype: torch.dtype) -> torch.dtype | None:
    if dtype.is_complex:
        return torch.complex128
    return torch.float64 if dtype.is_floating_point else None


def upcast_args(args: Sequence[BuiltArg]) -> tuple[BuiltArg, ...]:
    """Like clone_args, with floating tensors in float64 and complex ones in complex128."""
    return _map_args(args, lambda t: clone_tensor(t, _wide(t.dtype)))


def call(fn: Callable[..., Any], args: Sequence[BuiltArg]) -> Any:
    """Call `fn` with the positional arguments in order and the keyword ones by name."""
    return fn(*[a.value for a in args if not a.keyword],
              **{a.name: a.value for a in args if a.keyword})
