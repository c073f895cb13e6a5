"""Static anti-hack scan (layer L1): judge a candidate's syntax tree before it is imported.

`scan(source, filename)` parses the candidate with `ast` (nothing is imported or executed) and
returns one `Finding` per construct that a Triton candidate has no business using: torch APIs
outside a whitelist of allocation, metadata and view functions; torch compute methods called on
tensors; Triton's timing, runtime and compiler internals; imports other than torch, triton and a
few pure standard modules; `exec`/`eval`/`open` and friends; dunder attribute games; tensor
subclasses; state kept across calls (module-level mutable containers, `lru_cache`, mutable
defaults, writes to non-local objects or through aliases of them, `global`); broad `except`
clauses (fallback paths); and source encodings other than UTF-8 (the importer would decode
other bytes than were scanned).

Attributes are judged by an allow-list, not a block-list: an attribute of anything the
candidate did not define itself (a parameter, what a call returned, a module's object) must be
a name honest code reads (_HOST_ATTRS; _KERNEL_ATTRS inside a Triton kernel), never an
underscore name; frame, generator, traceback and code internals are refused by name wherever
they appear; `match` class patterns (attribute reads without attribute syntax) and `@` on host
values (torch's matrix product) are refused outright.

Names are resolved through the module's scopes: `import torch as T`, `from torch import mul as
m`, and `getattr(torch, "mul")` all reach `torch.mul`; a local variable or parameter that
shadows a name is not mistaken for it. docs/anti-hack.md lists the rules, the allow-list's
structure, what L1 cannot see (operators on tensors, dynamic dispatch on objects of unknown
type) and how to extend the hack corpus. The tables below are hard-coded on purpose: nothing
is imported or computed at import.
"""

from __future__ import annotations

import ast
import re
import string
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

__all__ = ["Finding", "RULES", "scan"]


@dataclass(frozen=True)
class Finding:
    """One construct the scan rejects: where (1-based line, 0-based column), which rule, why."""

    line: int
    col: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule}: {self.message}"


# Rule ids, as findings and docs/anti-hack.md name them. At one position (an outer expression
# starts where its innermost name does) the earlier rule is reported first: the root cause
# (`__import__` in `__import__("torch").mul(x)`) before its consequence (`.mul`).
RULES = (
    "encoding",        # a source encoding other than UTF-8
    "import",          # a module outside the allowed imports
    "builtin",         # exec, eval, compile, __import__, globals, open, ...
    "introspection",   # frame, generator, traceback, code and function internals, by name
    "dynamic-attr",    # getattr/setattr/delattr with a name that is not a constant
    "dunder",          # __class__, __dict__, metaclasses, magic methods
    "match",           # a class pattern in `match`: attribute reads without attribute syntax
    "tensor-subclass", # a class deriving from torch.Tensor (or anything torch)
    "monkey-patch",    # an assignment to an attribute of an imported module or what it holds
    "triton-api",      # triton.testing, triton.runtime, compiler internals, private names
    "torch-api",       # a torch name outside the whitelist, or the torch module used as a value
    "private-attr",    # an _underscore attribute of something the candidate did not define
    "tensor-method",   # a torch compute method called on an object (x.sum(), x.to(...))
    "attribute",       # another attribute outside the allow-list, of something not the candidate's
    "matmul",          # the @ operator in host code: torch's matrix product on tensors
    "global-write",    # a global or nonlocal statement
    "module-cache",    # state kept across calls: caches, mutable defaults, lru_cache, aliases
    "broad-except",    # bare except, except Exception/BaseException: a fallback path
    "unscannable",     # the tree is too deep to analyse: rejected rather than trusted
)

# Modules a candidate may import. torch and triton submodules are judged name by name below;
# struct is pure byte packing (host-side float bit tricks in shipped solutions).
_ALLOWED_MODULES = frozenset({
    "torch", "triton", "math", "functools", "typing", "dataclasses", "__future__", "struct",
})

# The torch whitelist: allocation, dtype/device/shape metadata, views (no compute, no copies
# beyond what a view needs). torch.arange is left out on purpose: it computes values (an index
# ramp is a kernel's job, tl.arange) and would solve arange-like tasks outright.
_TORCH_DTYPES = frozenset({
    "torch.float16", "torch.half", "torch.bfloat16", "torch.float32", "torch.float",
    "torch.float64", "torch.double", "torch.complex32", "torch.chalf", "torch.complex64",
    "torch.cfloat", "torch.complex128", "torch.cdouble", "torch.int8", "torch.int16",
    "torch.short", "torch.int32", "torch.int", "torch.int64", "torch.long", "torch.uint8",
    "torch.uint16", "torch.uint32", "torch.uint64", "torch.bool", "torch.float8_e4m3fn",
    "torch.float8_e4m3fnuz", "torch.float8_e5m2", "torch.float8_e5m2fnuz",
    "torch.float8_e8m0fnu",
})
# Names whose attributes are all metadata too (torch.float16.itemsize, torch.version.cuda).
_TORCH_PREFIXES = _TORCH_DTYPES | frozenset({
    "torch.strided", "torch.contiguous_format", "torch.channels_last", "torch.channels_last_3d",
    "torch.preserve_format", "torch.version", "torch.types",
})
_TORCH_ALLOWED = _TORCH_PREFIXES | frozenset({
    # types
    "torch.Tensor", "torch.Size", "torch.dtype", "torch.device", "torch.layout",
    "torch.memory_format",
    # allocation
    "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.zeros", "torch.zeros_like",
    "torch.ones", "torch.ones_like", "torch.full", "torch.full_like", "torch.tensor",
    # metadata and dtype queries
    "torch.finfo", "torch.iinfo", "torch.result_type", "torch.promote_types", "torch.can_cast",
    "torch.get_default_dtype", "torch.get_default_device", "torch.is_tensor",
    "torch.is_floating_point", "torch.is_complex", "torch.numel", "torch.broadcast_shapes",
    "torch.is_grad_enabled", "torch.no_grad", "torch.inference_mode",
    "torch.cuda.current_device", "torch.cuda.device_count", "torch.cuda.get_device_properties",
    "torch.cuda.is_available", "torch.cuda.get_device_capability", "torch.cuda.get_device_name",
    "torch.cuda.device",  # the context manager that selects a device for a launch
    # views (the function forms of the allowed view methods)
    "torch.view_as_real", "torch.view_as_complex", "torch.broadcast_to",
    "torch.broadcast_tensors", "torch.reshape", "torch.permute", "torch.transpose", "torch.t",
    "torch.squeeze", "torch.unsqueeze", "torch.flatten", "torch.narrow", "torch.select",
    "torch.as_strided", "torch.movedim", "torch.split", "torch.chunk", "torch.unbind",
})

# Tensor methods that only read metadata, make views, allocate, or move data into a tensor the
# candidate owns (copy_, resize_ of an out= argument). torch.Tensor.<name> is allowed for these.
_ALLOWED_METHODS = frozenset("""
    shape size stride dim ndim ndimension numel nelement dtype device layout is_contiguous
    contiguous view view_as reshape reshape_as permute transpose t T mT expand expand_as
    broadcast_to unsqueeze squeeze flatten unflatten ravel narrow select as_strided split
    split_with_sizes tensor_split chunk unbind movedim moveaxis swapaxes swapdims diagonal
    unfold real imag storage_offset element_size itemsize nbytes copy_ resize_ new_empty
    new_empty_strided new_zeros new_ones new_full new_tensor detach requires_grad get_device
    dim_order is_same_size is_floating_point is_complex is_signed is_conj is_neg is_cuda is_cpu
    is_meta is_sparse is_quantized is_leaf is_inference
""".split())

# torch.Tensor's public methods and properties (torch 2.13) that compute, cast, read values to
# the host, or reach storage, minus the allowed ones above and minus names that honest host code
# uses on other objects (index, values, name). Called on any object whose type L1 cannot know,
# they are findings; `type`, `max` and `min` only when called (device.type, finfo(...).max).
_BANNED_METHODS = frozenset("""
    H abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin
    aminmax angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_
    arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided_
    as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_
    backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount bitwise_and bitwise_and_
    bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or bitwise_or_
    bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool byte cauchy_
    ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky cholesky_inverse cholesky_solve
    clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone coalesce col_indices
    conj conj_physical conj_physical_ const_data_ptr copysign copysign_ corrcoef cos cos_ cosh
    cosh_ count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_ cumsum
    cumsum_ data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach_ diag diag_embed
    diagflat diagonal_scatter diff digamma digamma_ dist div div_ divide divide_ dot double
    dsplit eig eq eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expm1 expm1_
    exponential_ fill_ fill_diagonal_ fix fix_ flip fliplr flipud float float_power
    float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp
    gather gcd gcd_ ge ge_ geometric_ geqrf ger grad grad_dtype grad_fn greater greater_
    greater_equal greater_equal_ gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc
    histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ index_add index_add_
    index_copy index_copy_ index_fill index_fill_ index_put index_put_ index_reduce
    index_reduce_ index_select indices inner int int_repr inverse ipu is_nonzero is_set_to
    is_shared isclose isfinite isinf isnan isneginf isposinf isreal istft item kron kthvalue lcm
    lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log
    log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2
    logcumsumexp logdet logical_and logical_and_ logical_not logical_not_ logical_or
    logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu lu_solve
    mH map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul
    matrix_exp matrix_power max maximum mean median min minimum mm mode module_load msort mtia
    mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_ nan_to_num nan_to_num_ nanmean
    nanmedian nanquantile nansum narrow_copy ne ne_ neg neg_ negative negative_ new nextafter
    nextafter_ nonzero nonzero_static norm normal_ not_equal not_equal_ numpy orgqr ormqr outer
    output_nr pin_memory pinverse polygamma polygamma_ positive pow pow_ prelu prod put put_
    q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr
    qscheme quantile rad2deg rad2deg_ random_ reciprocal reciprocal_ record_stream
    register_hook register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_
    renorm renorm_ repeat repeat_interleave requires_grad_ resize resize_as resize_as_
    resize_as_sparse_ resolve_conj resolve_neg retain_grad retains_grad roll rot90 round round_
    row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_ scatter_reduce
    scatter_reduce_ select_scatter set_ sgn sgn_ share_memory_ short sigmoid sigmoid_ sign sign_
    signbit sin sin_ sinc sinc_ sinh sinh_ slice_inverse slice_scatter slogdet smm softmax solve
    sort sparse_dim sparse_mask sparse_resize_ sparse_resize_and_clear_ sqrt sqrt_ square
    square_ squeeze_ sspaddmm std stft storage storage_type sub sub_ subtract subtract_ sum
    sum_to_size svd swapaxes_ swapdims_ symeig t_ take take_along_dim tan tan_ tanh tanh_ tile
    to to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo
    to_sparse_csc to_sparse_csr tolist topk trace transpose_ triangular_solve tril tril_ triu
    triu_ true_divide true_divide_ trunc trunc_ type type_as unique unique_consecutive
    unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze_ untyped_storage uniform_ var
    vdot volatile vsplit where xlogy xlogy_ xpu zero_
""".split())
# Banned names that other objects carry as plain attributes: flagged only when called.
_CALL_ONLY = frozenset({"type", "max", "min"})

# Triton dtypes' attributes (triton 3.6's dtype, pointer_type and block_type).
_TRITON_DTYPE_ATTRS = frozenset("""
    name primitive_bitwidth itemsize int_bitwidth int_signedness fp_mantissa_width
    exponent_bias element_ty address_space const scalar nbytes shape numel is_floating
    is_standard_floating is_int is_int_signed is_int_unsigned is_bool is_int1 is_int8 is_int16
    is_int32 is_int64 is_uint8 is_uint16 is_uint32 is_uint64 is_fp8 is_fp8e4nv is_fp8e4b8
    is_fp8e4b15 is_fp8e5 is_fp8e5b16 is_fp16 is_bf16 is_fp32 is_fp64 is_ptr is_block is_void
    is_const is_dtype get_int_max_value get_int_min_value with_element_ty
""".split())
# The attribute allow-list. L1 cannot know the type of a parameter or of what a call returned,
# so an attribute of anything the candidate did not define (see _Scanner._own) must be named
# here: what honest host code reads on tensors (the allowed methods above), torch.dtype,
# torch.device, finfo/iinfo, device properties, Python's ints, floats, strings and containers,
# triton.Config (pruning functions read it) and Triton dtypes looked up in tables. Anything else
# is the finding `attribute`; underscore names are `private-attr` whatever the list says.
_HOST_ATTRS = _ALLOWED_METHODS | frozenset("""
    type index abbr is_signed to_real to_complex
    bits eps max min tiny smallest_normal resolution
    name major minor multi_processor_count total_memory warp_size L2_cache_size uuid
    max_threads_per_multi_processor regs_per_multiprocessor shared_memory_per_block
    shared_memory_per_block_optin shared_memory_per_multiprocessor is_integrated
    is_multi_gpu_board gcnArchName clock_rate memory_clock_rate memory_bus_width
    append extend insert pop remove clear copy sort reverse count get items keys values
    setdefault update popitem add discard union intersection difference symmetric_difference
    issubset issuperset isdisjoint
    join split rsplit splitlines strip lstrip rstrip startswith endswith lower upper
    capitalize title replace find rfind partition rpartition zfill ljust rjust center isdigit
    isalpha isalnum isidentifier isspace isupper islower encode decode removeprefix
    removesuffix
    bit_length bit_count to_bytes from_bytes conjugate numerator denominator is_integer
    as_integer_ratio hex fromhex
    kwargs all_kwargs num_warps num_stages num_ctas maxnreg
""".split()) | _TRITON_DTYPE_ATTRS
# Inside a Triton kernel, values are Triton tensors, dtypes and constexprs: their public API
# (triton 3.6's tensor methods and attributes, tensor descriptors, constexpr's value). `handle`
# is left out: under the interpreter it is the numpy buffer behind the value.
_KERNEL_ATTRS = frozenset("""
    T abs advance argmax argmin associative_scan atomic_add atomic_and atomic_cas atomic_max
    atomic_min atomic_or atomic_xchg atomic_xor broadcast_to cast cdiv ceil cos cumprod cumsum
    erf exp exp2 expand_dims flip floor gather histogram item log log2 logical_and logical_or
    max min permute ravel reduce reduce_or reshape rsqrt sigmoid sin softmax sort split sqrt
    sqrt_rn store sum to trans view xor_sum type dtype value load scatter block_shape strides
    layout base
""".split()) | _TRITON_DTYPE_ATTRS
# Attribute names that reach the interpreter itself: a frame's caller, locals and globals (the
# harness's objects; __builtins__ and so __import__), generators', coroutines' and tracebacks'
# frames, code objects, closure cells, a function's globals, a bound builtin's module. They
# are refused by name wherever they appear, on the candidate's own objects too.
_INTROSPECTION = frozenset({
    "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "f_lasti", "f_lineno",
    "f_trace", "f_trace_lines", "f_trace_opcodes", "f_generator", "cell_contents",
    "__code__", "__globals__", "__closure__", "__defaults__", "__kwdefaults__", "__builtins__",
    "__traceback__", "__context__", "__cause__", "__func__", "__self__", "__wrapped__",
    "_getframe", "_current_frames", "currentframe", "settrace", "setprofile", "gettrace",
    "getprofile", "func_globals", "func_code", "func_closure",
})
_INTROSPECTION_PREFIXES = ("gi_", "cr_", "ag_", "tb_", "co_")  # generator, coroutine, ...
# Decorators that may run at import: anything else (an own decorator) runs the candidate's code
# once and can return a closure whose state outlives every call.
_IMPORT_DECORATORS = frozenset({
    "dataclasses.dataclass", "functools.wraps", "functools.total_ordering", "typing.overload",
    "typing.final",
})

# Triton is allowed except these (and any private `_name`): timing, runtime and driver
# internals, the compiler (it also compiles hand-written IR), configuration knobs, profilers.
_TRITON_BANNED = frozenset({
    "triton.testing", "triton.runtime", "triton.compiler", "triton.compile", "triton.backends",
    "triton.knobs", "triton.tools", "triton.profiler", "triton.instrumentation",
})
_TRITON_ALLOWED = frozenset({"triton.tools.tensor_descriptor"})  # TMA descriptors on the host

# Builtins that execute code, reach frames, files or the import system, or read memory.
_BANNED_BUILTINS = frozenset({
    "exec", "eval", "compile", "__import__", "globals", "locals", "vars", "open", "input",
    "breakpoint", "memoryview", "help",
})
_ATTR_BUILTINS = frozenset({"getattr", "setattr", "delattr"})
_CACHE_DECORATORS = frozenset({
    "functools.lru_cache", "functools.cache", "functools.cached_property",
})
# Allowed modules' functions that evaluate strings (annotations) as code.
_EVALUATING = frozenset({
    "functools.singledispatch", "functools.singledispatchmethod", "typing.get_type_hints",
    "typing.ForwardRef",
})
# Standard modules that allowed modules hold as attributes and that are harmless and part of
# their API (triton.language.math, triton.language.random); any other module reached through an
# allowed one (typing.sys, dataclasses.builtins, triton.language.core.inspect) is an import.
_HARMLESS_MODULES = frozenset({"math", "random", "typing", "functools", "dataclasses", "struct"})
_FOREIGN_MODULES = frozenset({"torch", "numpy", "np", "cupy", "vllm", "cffi", "triton"})
# Dunder names a candidate may use: the `__main__` guard, docstrings, `__all__`, error messages.
_DUNDER_NAMES = frozenset({"__name__", "__doc__", "__all__"})
_DUNDER_ATTRS = frozenset({"__name__", "__qualname__", "__doc__", "__init__"})
# Magic methods a helper class may define; others (__getattr__, __torch_function__, __exit__
# that can swallow a kernel's exception, __del__, ...) change how objects behave behind L1.
_DUNDER_DEFS = frozenset({
    "__init__", "__post_init__", "__repr__", "__str__", "__call__", "__len__", "__iter__",
    "__getitem__", "__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
    "__hash__", "__bool__", "__enter__",
})
# Methods that change a container in place: on a non-local container they keep state.
_MUTATORS = frozenset({
    "append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add",
    "discard", "remove", "sort", "reverse", "appendleft", "extendleft",
})
# Builtins that build a mutable container, and uses of a read-only table that keep it so.
_CONTAINER_BUILTINS = frozenset({"list", "dict", "set", "bytearray"})
_CONTAINER_RESULTS = _CONTAINER_BUILTINS | frozenset({"sorted", "tuple", "range", "frozenset"})
_TABLE_METHODS = frozenset({"get", "keys", "values", "items", "index", "count", "copy"})
_TABLE_FUNCS = frozenset({
    "len", "tuple", "sorted", "frozenset", "list", "set", "dict", "min", "max", "any", "all",
    "enumerate", "zip", "iter", "reversed", "sum", "isinstance",
})
# Calls whose result is a constant at module level (no state, no allocation).
_STATIC_BUILTINS = frozenset({
    "int", "float", "bool", "str", "bytes", "complex", "tuple", "frozenset", "range", "len",
    "min", "max", "abs", "round", "pow", "divmod", "chr", "ord", "hex", "isinstance",
})
_STATIC_TORCH_CALLS = frozenset({
    "torch.finfo", "torch.iinfo", "torch.promote_types", "torch.get_default_dtype",
    "torch.dtype", "torch.device", "torch.Size", "torch.result_type", "torch.can_cast",
})
_MESSAGE_CAP = 200  # characters of one finding's message
_CODING_RE = r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)"  # PEP 263


# --------------------------------------------------------------------------------------------
# Scopes: which names each function, class, comprehension and the module bind.

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPE_NODES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                *_COMPS)


@dataclass
class _Scope:
    """Names bound by one scope; mutable while the tree is bound, read-only afterwards."""

    kind: str  # module, function, class or comp
    parent: _Scope | None
    node: ast.AST  # the Module, FunctionDef, Lambda, ClassDef or comprehension
    bound: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)  # name -> imported dotted name
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    containers: dict[str, bool] = field(default_factory=dict)  # name -> only containers bound
    # name -> what each binding binds: the assigned expression, the FunctionDef or ClassDef, or
    # None (a parameter, loop target, import, with/except/match name: not an expression L1 reads)
    values: dict[str, list[ast.AST | None]] = field(default_factory=dict)
    jit: bool = False  # a Triton kernel body: methods there are on Triton tensors


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a scope node that are evaluated in the enclosing scope."""
    if isinstance(node, (*_FUNCS, ast.Lambda)):
        a = node.args
        parts: list[ast.AST] = [*a.defaults, *[d for d in a.kw_defaults if d is not None]]
        if isinstance(node, _FUNCS):
            parts += node.decorator_list
            if node.returns is not None:
                parts.append(node.returns)
        return parts
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]
    if isinstance(node, _COMPS):
        return [node.generators[0].iter]
    return []


def _inner_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a scope node that run in its own scope."""
    if isinstance(node, ast.Module):
        return list(node.body)
    if isinstance(node, _FUNCS):
        return [node.args, *node.body]
    if isinstance(node, ast.Lambda):
        return [node.args, node.body]
    if isinstance(node, ast.ClassDef):
        return list(node.body)
    if isinstance(node, _COMPS):
        parts: list[ast.AST] = []
        for i, gen in enumerate(node.generators):
            parts += [gen.target, *gen.ifs] + ([gen.iter] if i else [])
        if isinstance(node, ast.DictComp):
            return parts + [node.key, node.value]
        return parts + [node.elt]
    return []


def _region(node: ast.AST) -> Iterator[ast.AST]:
    """Every node evaluated in `node`'s own scope; nested scope nodes without their insides."""
    todo = _inner_parts(node)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, _SCOPE_NODES):
            todo += _outer_parts(n)
        elif isinstance(n, ast.arguments):
            todo += [a for a in (*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg)
                     if a is not None]
        else:
            todo += ast.iter_child_nodes(n)


def _is_container(expr: ast.AST | None, builtin: set[str]) -> bool:
    """A list/dict/set display or comprehension, or a call of a container builtin."""
    if isinstance(expr, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp)):
        return True
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
            and expr.func.id in _CONTAINER_BUILTINS and expr.func.id in builtin)


def _bind(node: ast.AST, scope: _Scope) -> None:
    """Fill `scope` with the names `node`'s region binds."""
    values = scope.values
    for n in _region(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            scope.bound.add(n.id)
            values.setdefault(n.id, [])
        elif isinstance(n, ast.arg):
            scope.bound.add(n.arg)
            values.setdefault(n.arg, []).append(None)
        elif isinstance(n, (*_FUNCS, ast.ClassDef)):
            scope.bound.add(n.name)
            values.setdefault(n.name, []).append(n)
        elif isinstance(n, ast.Import):
            for a in n.names:
                name = a.asname or a.name.split(".")[0]
                scope.bound.add(name)
                scope.aliases[name] = a.name if a.asname else name
                values.setdefault(name, []).append(None)
        elif isinstance(n, ast.ImportFrom):
            for a in n.names:
                if a.name == "*":
                    continue
                name = a.asname or a.name
                scope.bound.add(name)
                values.setdefault(name, []).append(None)
                if n.level == 0 and n.module:
                    scope.aliases[name] = f"{n.module}.{a.name}"
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
            scope.bound.add(n.name)
            values.setdefault(n.name, []).append(None)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            scope.bound.add(n.rest)
            values.setdefault(n.rest, []).append(None)
        elif isinstance(n, ast.Global):
            scope.globals.update(n.names)
        elif isinstance(n, ast.Nonlocal):
            scope.nonlocals.update(n.names)
        if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    values.setdefault(t.id, []).append(n.value)
                else:  # unpacked: the names get no readable value
                    for x in ast.walk(t):
                        if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                            values.setdefault(x.id, []).append(None)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            values.setdefault(n.target.id, []).append(n.value)
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.AugAssign)):
            bound = (n.target if isinstance(n, (ast.For, ast.AsyncFor, ast.AugAssign))
                     else ast.Tuple([i.optional_vars for i in n.items
                                     if i.optional_vars is not None]))
            for x in ast.walk(bound):
                if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                    values.setdefault(x.id, []).append(None)
    # Names bound only to containers (list.sort() there is not Tensor.sort()); a builtin
    # container call counts when no scope could shadow the builtin, which _Scanner checks.
    for name, vals in values.items():
        scope.containers[name] = bool(vals) and all(
            isinstance(v, (ast.List, ast.Dict, ast.Set, ast.Tuple, *_COMPS))
            or (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                and v.func.id in _CONTAINER_RESULTS) for v in vals)


# --------------------------------------------------------------------------------------------
# The scan.


class _Scanner(ast.NodeVisitor):
    """Walks the tree once with a scope stack and records findings."""

    def __init__(self, tree: ast.Module, allow: frozenset[str]) -> None:
        self.allow = allow
        self.findings: list[Finding] = []
        self.parents: dict[ast.AST, ast.AST] = {}
        self.scopes: dict[ast.AST, _Scope] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        self.module = self._build(tree, None)
        self.stack: list[_Scope] = [self.module]
        self.tables: dict[str, ast.AST] = {}  # module-level read-only tables: name -> target
        self._mark_jit(tree)
        self.kernels = {n.name for n in tree.body if isinstance(n, _FUNCS)
                        and self.scopes[n].jit}  # module-level Triton functions
        # name -> attributes assigned on a plain name anywhere (f.out = y, setattr(C, "x", v)):
        # the members of the candidate's own functions and classes of that name. The
        # assignments themselves are judged where they happen (module state, or monkey-patch).
        self.stored: dict[str, set[str]] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load) \
                    and isinstance(n.value, ast.Name):
                self.stored.setdefault(n.value.id, set()).add(n.attr)
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                  and n.func.id == "setattr" and len(n.args) >= 2
                  and isinstance(n.args[0], ast.Name) and isinstance(n.args[1], ast.Constant)
                  and isinstance(n.args[1].value, str)):
                self.stored.setdefault(n.args[0].id, set()).add(n.args[1].value)
        # Names of the own classes' members that are unsafe through the class (plain methods
        # and what refers to them): read on anything but an own instance, such a name may be
        # the unbound method, whose `self` (trusted inside it) is then whatever is passed.
        self.unbound = {name for node, scope in self.scopes.items()
                        if isinstance(node, ast.ClassDef)
                        for name, vals in scope.values.items()
                        if not all(self._class_safe(v, scope) for v in vals)}

    # -- scopes and names ----------------------------------------------------------------

    def _build(self, node: ast.AST, parent: _Scope | None) -> _Scope:
        kind = ("module" if isinstance(node, ast.Module) else "class"
                if isinstance(node, ast.ClassDef) else "comp" if isinstance(node, _COMPS)
                else "function")
        scope = _Scope(kind, parent, node)
        self.scopes[node] = scope
        _bind(node, scope)
        for n in _region(node):
            if n is not node and isinstance(n, _SCOPE_NODES):
                self._build(n, scope)
        if parent is None:  # names declared global anywhere are module names
            for s in self.scopes.values():
                scope.bound |= s.globals
        return scope

    def _mark_jit(self, tree: ast.Module) -> None:
        """Triton-decorated functions, and functions passed to triton.jit(...) and the like."""
        defs = {n.name: n for n in tree.body if isinstance(n, _FUNCS)}
        for node, scope in self.scopes.items():
            if isinstance(node, _FUNCS) and any(self._is_triton(d, scope.parent)
                                                for d in node.decorator_list):
                scope.jit = True
        for n in ast.walk(tree):
            if (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name)
                    and n.args[0].id in defs and self._is_triton(n, self.module)):
                self.scopes[defs[n.args[0].id]].jit = True
        for node, scope in self.scopes.items():  # nested scopes of a kernel are kernel code
            s = scope.parent
            while s is not None and not scope.jit:
                scope.jit = s.jit
                s = s.parent

    def _is_triton(self, expr: ast.AST, scope: _Scope | None) -> bool:
        while isinstance(expr, ast.Call):
            expr = expr.func
        dotted = self._dotted(expr, scope or self.module)
        return dotted is not None and (dotted == "triton" or dotted.startswith("triton."))

    @property
    def scope(self) -> _Scope:
        return self.stack[-1]

    def _lookup(self, name: str, scope: _Scope | None = None) -> _Scope | None:
        """The scope that binds `name` as seen from `scope`; None for a builtin."""
        s: _Scope | None = scope or self.scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent
                continue
            if name in s.globals:
                return self.module
            if name in s.bound and name not in s.nonlocals:
                return s
            first = False
            s = s.parent
        return None

    def _home(self, scope: _Scope) -> _Scope:
        """The function (or module) a comprehension runs in."""
        while scope.kind == "comp" and scope.parent is not None:
            scope = scope.parent
        return scope

    def _is_builtin(self, node: ast.AST, name: str) -> bool:
        return isinstance(node, ast.Name) and node.id == name and self._lookup(name) is None

    def _getattr_const(self, node: ast.AST) -> str | None:
        """The constant name of getattr(obj, "name"[, default]), else None."""
        if (isinstance(node, ast.Call) and self._is_builtin(node.func, "getattr")
                and len(node.args) in (2, 3) and not node.keywords
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            return node.args[1].value
        return None

    def _dotted(self, expr: ast.AST, scope: _Scope | None = None) -> str | None:
        """The imported name an expression denotes (`T.cuda.Event` -> torch.cuda.Event)."""
        if isinstance(expr, ast.Name):
            s = self._lookup(expr.id, scope)
            return s.aliases.get(expr.id) if s is not None else None
        if isinstance(expr, ast.Attribute):
            base = self._dotted(expr.value, scope)
            return f"{base}.{expr.attr}" if base else None
        name = self._getattr_const(expr)
        if name is not None and isinstance(expr, ast.Call):
            base = self._dotted(expr.args[0], scope)
            return f"{base}.{name}" if base else None
        return None

    def _chain_inner(self, node: ast.AST) -> bool:
        """Whether `node` is the object of a longer chain (`torch` in `torch.add`)."""
        p = self.parents.get(node)
        if isinstance(p, ast.Attribute):
            return p.value is node
        return (isinstance(p, ast.Call) and bool(p.args) and p.args[0] is node
                and self._getattr_const(p) is not None)

    def _root(self, expr: ast.AST) -> ast.Name | None:
        while isinstance(expr, (ast.Attribute, ast.Subscript)):
            expr = expr.value
        return expr if isinstance(expr, ast.Name) else None

    def _outlives_call(self, name: ast.Name) -> bool:
        """Whether a name refers to an object that outlives the current call.

        A local alias (`c = Cache`, `c = a if k else Cache`, `(c := Cache)`) is judged like the
        name it aliases: writing through it writes module state.
        """
        s = self._lookup(name.id)
        if s is None or s.kind == "comp":
            return False
        return s is not self._home(self.scope) or s is self.module or self._alias(name.id, s)

    def _alias(self, name: str, scope: _Scope, seen: frozenset[str] = frozenset()) -> bool:
        """Whether some binding of local `name` in `scope` is a name that outlives the call."""
        return any(v is not None and self._refers_out(v, scope, seen | {name})
                   for v in scope.values.get(name, ()))

    def _refers_out(self, expr: ast.AST, scope: _Scope, seen: frozenset[str]) -> bool:
        if isinstance(expr, ast.Name):
            s = self._lookup(expr.id, scope)
            if s is None or s.kind == "comp":
                return False
            return (s is self.module or s is not self._home(scope)
                    or (expr.id not in seen and self._alias(expr.id, s, seen)))
        if isinstance(expr, ast.IfExp):
            return any(self._refers_out(e, scope, seen) for e in (expr.body, expr.orelse))
        if isinstance(expr, ast.BoolOp):
            return any(self._refers_out(e, scope, seen) for e in expr.values)
        if isinstance(expr, ast.NamedExpr):
            return self._refers_out(expr.value, scope, seen)
        return False

    # -- the candidate's own objects ----------------------------------------------------------

    def _binding(self, name: str, scope: _Scope | None = None) -> ast.AST | None:
        """The one expression or definition `name` is bound to, where it has exactly one."""
        s = self._lookup(name, scope)
        vals = s.values.get(name, []) if s is not None else []
        return vals[0] if len(vals) == 1 else None

    def _own_class(self, expr: ast.AST, scope: _Scope | None = None,
                   depth: int = 0) -> ast.ClassDef | None:
        """The candidate's class that `expr` names: its class statement's name (undecorated or
        a dataclass), a local alias of it (`c = C`, `c = C if k else None`), or `cls` in one
        of its classmethods."""
        if depth > 8:
            return None
        if isinstance(expr, (ast.IfExp, ast.BoolOp, ast.NamedExpr)):
            parts = ([expr.body, expr.orelse] if isinstance(expr, ast.IfExp) else
                     expr.values if isinstance(expr, ast.BoolOp) else [expr.value])
            found = {self._own_class(e, scope, depth + 1) for e in parts
                     if not (isinstance(e, ast.Constant) and e.value is None)}
            return found.pop() if len(found) == 1 else None
        if not isinstance(expr, ast.Name):
            return None
        b = self._binding(expr.id, scope)
        if isinstance(b, ast.ClassDef):
            return b if all(self._dotted(d if not isinstance(d, ast.Call) else d.func)
                            == "dataclasses.dataclass" for d in b.decorator_list) else None
        if isinstance(b, (ast.Name, ast.IfExp, ast.BoolOp, ast.NamedExpr)):
            s = self._lookup(expr.id, scope)
            return self._own_class(b, s, depth + 1)
        if b is None:
            method = self._method_of(expr.id, scope)
            if method is not None and method[1] == "classmethod":
                return method[0]
        return None

    def _method_of(self, name: str, scope: _Scope | None = None
                   ) -> tuple[ast.ClassDef, str] | None:
        """(class, kind) when `name` is the first parameter of a method of an own class: kind
        is "method" (it is `self`) or "classmethod" (it is `cls`), never rebound."""
        s = self._lookup(name, scope)
        if s is None or s.kind != "function" or s.values.get(name) != [None]:
            return None
        fn, cls_scope = s.node, s.parent
        if not isinstance(fn, _FUNCS) or cls_scope is None or cls_scope.kind != "class":
            return None
        args = [*fn.args.posonlyargs, *fn.args.args]
        if not args or args[0].arg != name:
            return None
        kinds = {d.id for d in fn.decorator_list if isinstance(d, ast.Name)
                 and self._lookup(d.id, cls_scope) is None}
        if len(fn.decorator_list) != len(kinds) or "staticmethod" in kinds:
            return None
        cls = cls_scope.node
        if not isinstance(cls, ast.ClassDef) or self._own_class(
                ast.Name(cls.name), cls_scope.parent) is not cls:
            return None
        return cls, "classmethod" if "classmethod" in kinds else "method"

    def _own(self, expr: ast.AST) -> tuple[str, ast.ClassDef | ast.FunctionDef
                                            | ast.AsyncFunctionDef] | None:
        """("class", C) or ("instance", C) when `expr` is one of the candidate's own classes or
        an instance it built in this call: `C`, an alias, `cls`, `self`, `p` bound only to
        `C(...)` in this function, or `super()` (then the members are those of C's bases);
        ("function", f) for one of its own undecorated functions."""
        c = self._own_class(expr)
        if c is not None:
            return "class", c
        if isinstance(expr, ast.Name):
            b = self._binding(expr.id)
            if isinstance(b, _FUNCS) and not b.decorator_list:
                return "function", b
        if isinstance(expr, ast.Call) and self._is_builtin(expr.func, "super") \
                and not expr.args:
            s: _Scope | None = self.scope
            while s is not None and s.kind != "function":
                s = s.parent
            first = [*s.node.args.posonlyargs, *s.node.args.args][:1] \
                if s is not None and isinstance(s.node, _FUNCS) else []
            method = self._method_of(first[0].arg, s) if first else None
            return ("super", method[0]) if method is not None else None
        if not isinstance(expr, ast.Name):
            return None
        method = self._method_of(expr.id)
        if method is not None and method[1] == "method":
            return "instance", method[0]
        s = self._lookup(expr.id)
        vals = s.values.get(expr.id, []) if s is not None else []
        if s is not None and s is self._home(self.scope) and s is not self.module and vals:
            classes = {self._built(v, s) for v in vals}
            only = classes.pop() if len(classes) == 1 else None
            if only is not None:
                return "instance", only
        return None

    def _built(self, expr: ast.AST | None, scope: _Scope) -> ast.ClassDef | None:
        """The own class whose instance `expr` builds: `C(...)`, or `C(1) if k else C()`."""
        if isinstance(expr, ast.Call):
            return self._own_class(expr.func, scope)
        if isinstance(expr, ast.IfExp):
            a, b = self._built(expr.body, scope), self._built(expr.orelse, scope)
            return a if a is b else None
        return None

    def _members(self, cls: ast.ClassDef, bases_only: bool = False,
                  depth: int = 0) -> dict[str, list[ast.AST | None]]:
        """Names the candidate's class defines: its body's, those its methods assign on self,
        and its own base classes' (a foreign base adds nothing: those names stay judged)."""
        out: dict[str, list[ast.AST | None]] = {}
        scope = self.scopes[cls]
        if not bases_only:
            for name, vals in scope.values.items():
                out.setdefault(name, []).extend(vals)
            for name in self.stored.get(cls.name, ()):
                out.setdefault(name, []).append(None)
            for fn in cls.body:
                args = [*fn.args.posonlyargs, *fn.args.args] if isinstance(fn, _FUNCS) else []
                if not args:
                    continue
                for n in ast.walk(fn):
                    if (isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                            and isinstance(n.value, ast.Name) and n.value.id == args[0].arg):
                        out.setdefault(n.attr, []).append(None)
        for base in cls.bases:
            b = self._own_class(base, scope.parent)
            if b is not None and b is not cls and depth < 8:
                for name, vals in self._members(b, depth=depth + 1).items():
                    out.setdefault(name, []).extend(vals)
        return out

    # -- findings ---------------------------------------------------------------------------

    def _allowed(self, rule: str, subject: str) -> bool:
        if rule in self.allow or subject in self.allow:
            return True
        parts = subject.split(".")
        return any(".".join(parts[:i]) in self.allow for i in range(1, len(parts)))

    def add(self, node: ast.AST, rule: str, message: str, subject: str = "") -> None:
        if self._allowed(rule, subject):
            return
        if len(message) > _MESSAGE_CAP:
            message = message[:_MESSAGE_CAP - 3] + "..."
        self.findings.append(Finding(getattr(node, "lineno", 1), getattr(node, "col_offset", 0),
                                     rule, message))

    # -- judging names ------------------------------------------------------------------------

    def _judge(self, node: ast.AST, dotted: str, importing: bool = False) -> None:
        """An imported name used (or imported) as `dotted`."""
        parts = dotted.split(".")
        top = parts[0]
        for i, part in enumerate(parts[1:], 1):
            if part in _FOREIGN_MODULES or (part in sys.stdlib_module_names
                                            and part not in _HARMLESS_MODULES):
                self.add(node, "import", f"{'.'.join(parts[:i + 1])} reaches the module "
                         f"'{part}'", ".".join(parts[:i + 1]))
                return
        private = next((p for p in parts[1:] if p.startswith("_")
                        and not (p.startswith("__") and p.endswith("__"))), None)
        if private is not None and top not in ("torch", "triton"):
            # dataclasses._create_fn exec()s source text, typing._eval_type eval()s strings
            self.add(node, "private-attr", f"{dotted}: private internals of '{top}'", dotted)
        elif dotted in _EVALUATING:
            self.add(node, "builtin", f"{dotted} evaluates strings (annotations) as code",
                     dotted)
        elif top == "torch":
            self._judge_torch(node, dotted, importing)
        elif top == "triton":
            self._judge_triton(node, dotted, importing)
        elif dotted in _CACHE_DECORATORS:
            self.add(node, "module-cache", f"{dotted} keeps results across calls", dotted)

    def _judge_torch(self, node: ast.AST, dotted: str, importing: bool) -> None:
        if dotted in _TORCH_ALLOWED:
            return
        parts = dotted.split(".")
        if any(".".join(parts[:i]) in _TORCH_PREFIXES for i in range(2, len(parts))):
            return
        if len(parts) == 3 and parts[1] == "Tensor" and parts[2] in _ALLOWED_METHODS:
            return
        if importing and (dotted == "torch" or any(a.startswith(dotted + ".")
                                                   for a in _TORCH_ALLOWED)):
            return  # a namespace (torch.cuda): each use is judged where it happens
        if dotted == "torch" or not any(a.startswith(dotted + ".") for a in _TORCH_ALLOWED):
            what = ("the torch module used as a value (dynamic dispatch)" if dotted == "torch"
                    else f"{dotted} is not an allowed torch API (allocation, metadata, views)")
        else:
            what = f"{dotted} used as a value (only its allowed members may be used)"
        self.add(node, "torch-api", what, dotted)

    def _judge_triton(self, node: ast.AST, dotted: str, importing: bool) -> None:
        parts = dotted.split(".")
        prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        if prefixes & _TRITON_ALLOWED:
            return
        if prefixes & _TRITON_BANNED:
            bad = min(prefixes & _TRITON_BANNED, key=len)
            self.add(node, "triton-api", f"{bad} is off limits (timing, runtime and compiler "
                     "internals)", dotted)
        elif any(p.startswith("_") for p in parts[1:]):
            self.add(node, "triton-api", f"{dotted}: private triton internals", dotted)
        elif not importing and dotted in ("triton", "triton.language"):
            self.add(node, "triton-api", f"the {dotted} module used as a value (dynamic "
                     "dispatch)", dotted)

    # -- visitors -------------------------------------------------------------------------

    def generic_visit(self, node: ast.AST) -> None:
        if node in self.scopes and not isinstance(node, ast.Module):
            self._visit_scope(node)
            return
        super().generic_visit(node)

    def visit_Module(self, node: ast.Module) -> None:
        self._module_state(node)
        for stmt in node.body:
            if self._main_guard(stmt):
                for s in stmt.orelse:  # the body never runs when the worker imports the file
                    self.visit(s)
            else:
                self.visit(stmt)

    def _main_guard(self, stmt: ast.stmt) -> TypeGuard[ast.If]:
        """`if __name__ == "__main__":` at module level, with `__name__` never rebound."""
        if not (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare)
                and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], ast.Eq)):
            return False
        sides = [stmt.test.left, stmt.test.comparators[0]]
        return ("__name__" not in self.module.bound
                and any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
                and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides))

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._import(node, a.name, a.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.add(node, "import", f"relative import from '{'.' * node.level}{module}'",
                     module)
            return
        for a in node.names:
            if a.name == "*":
                self.add(node, "import", f"'from {module} import *' hides which names are used",
                         module)
            elif self._import(node, module, f"{module}.{a.name}"):
                self._judge(node, f"{module}.{a.name}", importing=True)

    def _import(self, node: ast.AST, module: str, dotted: str) -> bool:
        """Judge an imported module; True when the module itself is allowed."""
        top = module.split(".")[0]
        if top not in _ALLOWED_MODULES or (top not in ("torch", "triton") and module != top):
            self.add(node, "import", f"import of '{module}' (allowed: torch, triton and "
                     "math, functools, typing, dataclasses, struct)", module)
            return False
        if module != top:
            self._judge(node, module, importing=True)
        return True

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        builtin = self._lookup(name) is None
        if builtin and name in _BANNED_BUILTINS:
            self.add(node, "builtin", f"{name}() is not allowed in a candidate", name)
        elif name.startswith("__") and name.endswith("__") and (
                name not in _DUNDER_NAMES
                or (not isinstance(node.ctx, ast.Load) and name != "__all__")):
            self.add(node, "dunder", f"dunder name '{name}'", name)
        elif builtin and name in _ATTR_BUILTINS:
            p = self.parents.get(node)
            constant = (isinstance(p, ast.Call) and p.func is node and len(p.args) >= 2
                        and isinstance(p.args[1], ast.Constant)
                        and isinstance(p.args[1].value, str))
            if not constant:
                self.add(node, "dynamic-attr", f"{name}() without a constant attribute name",
                         name)
        elif builtin and name == "type":
            p = self.parents.get(node)
            if isinstance(p, ast.Call) and p.func is node and len(p.args) == 3:
                self.add(node, "builtin", "type() with three arguments builds a class", name)
        if isinstance(node.ctx, ast.Load):
            dotted = self._dotted(node)
            if dotted is not None and not self._chain_inner(node):
                self._judge(node, dotted)
            if name in self.kernels and not self.scope.jit and self._lookup(name) is self.module:
                self._kernel_use(node)
            if name in self.tables and self._lookup(name) is self.module:
                self._table_use(node)
        elif name in self.tables and self._lookup(name) is self.module \
                and node is not self.tables[name]:
            self.add(node, "module-cache", f"module-level table '{name}' is rebound", name)

    def _kernel_use(self, node: ast.Name) -> None:
        """Host code may launch a kernel (k[grid](...)) or hand it to triton, nothing else.

        Called directly, the CPU interpreter runs a kernel's body as plain Python (whose method
        calls L1 does not judge as torch's); `k.fn` reaches that Python function anywhere. A
        kernel may also be picked (`k = _a if c else _b`) or passed to a helper of the module,
        when that name or parameter is then only launched.
        """
        e: ast.expr = node
        p = self.parents.get(e)
        while isinstance(p, ast.IfExp) and e is not p.test:
            e, p = p, self.parents.get(p)
        if isinstance(p, ast.Subscript) and p.value is e:
            return
        if isinstance(p, ast.Call) and e in p.args and self._is_triton(p, self.scope):
            return
        if (isinstance(p, ast.Assign) and p.value is e and len(p.targets) == 1
                and isinstance(p.targets[0], ast.Name) and self.scope.kind == "function"
                and self._launch_only(self.scope.node, p.targets[0].id)):
            return
        if isinstance(p, ast.keyword):
            p = self.parents.get(p)
        if isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and \
                self._lookup(p.func.id) is self.module and isinstance(self.module.node, ast.Module):
            callee = next((n for n in self.module.node.body
                           if isinstance(n, _FUNCS) and n.name == p.func.id), None)
            if callee is not None and not self.scopes[callee].jit:
                params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
                if e in p.args and p.args.index(e) < len(params):
                    param: str | None = params[p.args.index(e)]
                else:
                    param = next((k.arg for k in p.keywords if k.value is e), None)
                if param is not None and self._launch_only(callee, param):
                    return
        self.add(node, "triton-api", f"kernel '{node.id}' used other than launched as "
                 f"{node.id}[grid](...)", node.id)

    def _launch_only(self, fn: ast.AST, name: str) -> bool:
        """Every read of `name` in function `fn` is a launch, `name[grid](...)`."""
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                p = self.parents.get(n)
                if not (isinstance(p, ast.Subscript) and p.value is n):
                    return False
        return True

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        self._attr_name(node, node.value, attr)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._store(node, node.value, attr)
            self.visit(node.value)
            return
        dotted = self._dotted(node)
        if dotted is not None:
            if not self._chain_inner(node):
                self._judge(node, dotted)
        else:
            self._attribute(node, node.value, attr)
        self.generic_visit(node)

    def _attr_name(self, node: ast.AST, receiver: ast.AST, attr: str, how: str = "") -> None:
        """Rules on the attribute's name alone, whatever it is read from."""
        if attr in _INTROSPECTION or attr.startswith(_INTROSPECTION_PREFIXES):
            self.add(node, "introspection", f"'.{attr}'{how} reaches frames, code or a "
                     "function's globals (the interpreter behind the scan)", attr)
        elif attr.startswith("__") and attr.endswith("__") and attr not in _DUNDER_ATTRS:
            self.add(node, "dunder", f"dunder attribute '.{attr}'{how}", attr)
        elif attr == "__init__" and not (isinstance(receiver, ast.Call)
                                         and self._is_builtin(receiver.func, "super")):
            self.add(node, "dunder", "'.__init__' other than super().__init__(...) re-runs a "
                     "constructor on an existing object", attr)

    def _attribute(self, node: ast.AST, receiver: ast.AST, attr: str) -> None:
        """An attribute read from something that is not an imported name: the allow-list.

        The candidate's own classes and the instances it builds may use the names they define
        (an unbound method through the class aside: its `self` could be any object); anything
        else may use the names in _HOST_ATTRS (_KERNEL_ATTRS inside a kernel), and never an
        underscore name. Names refused by _attr_name are not judged twice.
        """
        if attr in _INTROSPECTION or attr.startswith(_INTROSPECTION_PREFIXES) or (
                attr.startswith("__") and attr.endswith("__")):
            return
        if self.scope.jit:
            if attr.startswith("_"):
                self.add(node, "private-attr", f"'.{attr}' in a kernel: private internals of "
                         "a Triton value", attr)
            elif attr not in _KERNEL_ATTRS:
                self.add(node, "attribute", f"'.{attr}' in a kernel is not Triton tensor or "
                         "dtype API", attr)
            return
        own = self._own(receiver)
        if own is not None and own[0] == "function":
            if attr in self.stored.get(own[1].name, ()):
                return  # set on it somewhere: that assignment is the finding (module-cache)
        elif own is not None:
            kind, cls = own
            assert isinstance(cls, ast.ClassDef)
            members = self._members(cls, bases_only=kind == "super")
            if kind == "instance" and isinstance(receiver, ast.Name) \
                    and attr in self.stored.get(receiver.id, ()):
                return  # p.extra = 1 on an instance it built, read back
            if attr in members:
                if kind == "class" and attr in self.unbound:
                    self.add(node, "attribute", f"'{cls.name}.{attr}' through the class: an "
                             "unbound method's self could be any object", attr)
                return
        if attr.startswith("_"):
            self.add(node, "private-attr", f"'.{attr}': private internals of an object the "
                     "candidate did not define", attr)
            return
        if attr in self.unbound and not self._plain_value(receiver):
            self.add(node, "attribute", f"'.{attr}' is a method of the candidate's class, "
                     "read from something that may be the class: its self could be any "
                     "object", attr)
            return
        if isinstance(receiver, ast.Call) and self._is_builtin(receiver.func, "type"):
            self.add(node, "attribute", f"type(...).{attr}: a class's attributes (unbound "
                     "methods among them); only __name__ and __qualname__", attr)
            return
        if attr in ("format", "format_map"):
            self._format(node, receiver, attr)
            return
        if attr in _BANNED_METHODS and self._method(node, receiver, attr):
            return
        if attr not in _HOST_ATTRS:
            self.add(node, "attribute", f"'.{attr}' is not an allowed attribute of an object "
                     "the candidate did not define (docs/anti-hack.md)", attr)

    def _class_safe(self, value: ast.AST | None, scope: _Scope) -> bool:
        """A class member that is safe to read through the class: no plain method, and no
        value that refers to one (`n = m`, `x: int = dataclasses.field(default=m)`)."""
        if isinstance(value, _FUNCS):
            return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                       for d in value.decorator_list)
        if isinstance(value, ast.ClassDef) or value is None:
            return True
        for n in ast.walk(value):
            if isinstance(n, ast.Lambda):
                return False
            if isinstance(n, ast.Name) and n.id in scope.bound:
                if not all(v is not value and self._class_safe(v, scope)
                           for v in scope.values.get(n.id, [None])):
                    return False
        return True

    def _plain_value(self, expr: ast.AST) -> bool:
        """A constant, or a name bound in this function only to containers: not a class."""
        if isinstance(expr, (ast.Constant, ast.JoinedStr)):
            return True
        if isinstance(expr, ast.Name):
            s = self._lookup(expr.id)
            return (s is not None and bool(s.containers.get(expr.id))
                    and self._containers_builtin(s)) or expr.id in self.tables
        return False

    def _format(self, node: ast.AST, receiver: ast.AST, attr: str) -> None:
        """str.format reads attributes named in its fields ("{0.gi_frame}"): only a constant
        format string can be judged, each attribute like any other of a foreign object."""
        if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
            self.add(node, "attribute", f".{attr} on a format string L1 cannot read (its "
                     "fields can name any attribute)", attr)
            return
        for name in _format_attrs(receiver.value):
            if name in _INTROSPECTION or name.startswith(_INTROSPECTION_PREFIXES):
                self.add(node, "introspection", f"format field '.{name}' reaches frames, "
                         "code or a function's globals", name)
            elif name.startswith("_"):
                self.add(node, "private-attr", f"format field '.{name}': private or dunder "
                         "attribute", name)
            elif name not in _HOST_ATTRS:
                self.add(node, "attribute", f"format field '.{name}' is not an allowed "
                         "attribute", name)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = self._root(node)
            if root is not None and self._dotted(root) is not None:
                self.add(node, "monkey-patch", f"item assignment into module '{root.id}'",
                         self._dotted(root) or "")
            elif root is not None and self._outlives_call(root):
                self.add(node, "module-cache", f"writes into '{root.id}', which outlives the "
                         "call (state kept across calls)", root.id)
            elif self._foreign_attr_write(node.value):
                self.add(node, "module-cache", "writes into an attribute of an object the "
                         "candidate did not build in this call (it may outlive the call)", "")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = self._getattr_const(node)
        if name is not None:
            self._attr_name(node, node.args[0], name, " via getattr")
            dotted = self._dotted(node)
            if dotted is not None:
                if not self._chain_inner(node):
                    self._judge(node, dotted)
            else:
                self._attribute(node, node.args[0], name)
        elif (isinstance(func, ast.Name) and func.id in ("setattr", "delattr")
              and self._lookup(func.id) is None and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            self._attr_name(node, node.args[0], node.args[1].value, f" via {func.id}")
            self._store(node, node.args[0], node.args[1].value)
        elif isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
            root = self._root(func.value)
            if root is not None and self._dotted(root) is None and self._outlives_call(root):
                self.add(node, "module-cache", f"'{root.id}.{func.attr}(...)' changes an object "
                         "that outlives the call (state kept across calls)", root.id)
            elif self._dotted(func.value) is None and self._foreign_attr_write(func.value):
                self.add(node, "module-cache", f".{func.attr}(...) changes an attribute of an "
                         "object the candidate did not build in this call", func.attr)
        self.generic_visit(node)

    def _method(self, node: ast.AST, receiver: ast.AST, attr: str) -> bool:
        """A torch compute method's name on an object of unknown type. True when judged here
        (a finding, or an alignment test); False when the allow-list is still to judge it."""
        p = self.parents.get(node)
        call = p if isinstance(p, ast.Call) and p.func is node else None
        called = call is not None
        if attr in _CALL_ONLY and ((not called and self._value_read(node, receiver)) or (
                attr == "type" and call is not None and not call.args and not call.keywords)):
            return False  # device.type, finfo(dt).max, x.type() (a string)
        if isinstance(receiver, ast.Name):
            s = self._lookup(receiver.id)
            if s is not None and s.containers.get(receiver.id) and self._containers_builtin(s):
                return False  # a list, dict or set bound in this scope: not a tensor's sort()
        if attr == "data_ptr" and called and self._alignment_check(p):
            return True
        self.add(node, "tensor-method", f".{attr}(): torch compute on a tensor (the work must "
                 "happen in Triton kernels)" if called else f".{attr}: torch tensor method "
                 "taken as a value", attr)
        return True

    def _value_read(self, node: ast.AST, receiver: ast.AST) -> bool:
        """`.type`, `.max` or `.min` read as a value, never to be called: of a device or a
        finfo/iinfo (a string or a number), or used where only its value counts (compared,
        in arithmetic, a key, formatted). `f = x.max; f()` would be a reduction."""
        metadata = ("torch.finfo", "torch.iinfo", "torch.device",
                    "torch.cuda.get_device_properties")
        e: ast.AST | None = receiver
        if isinstance(e, ast.Name):
            b = self._binding(e.id)
            e = b if b is not None else e
        if (isinstance(e, ast.Attribute) and e.attr == "device") or (
                isinstance(e, ast.Call) and self._dotted(e.func) in metadata):
            return True
        p = self.parents.get(node)
        return (isinstance(p, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.FormattedValue))
                or (isinstance(p, ast.IfExp) and p.test is node)
                or (isinstance(p, ast.Subscript) and p.slice is node))

    def _containers_builtin(self, scope: _Scope) -> bool:
        """Container builtins (list, sorted, ...) are not shadowed where `scope` sees them."""
        return all(self._lookup(n, scope) is None for n in _CONTAINER_RESULTS)

    def _alignment_check(self, call: ast.AST | None) -> bool:
        """`x.data_ptr() % 16` (or `& 15`): an alignment test, useless as a cache key."""
        p = self.parents.get(call) if call is not None else None
        return (isinstance(p, ast.BinOp) and p.left is call and isinstance(p.op, (ast.Mod,
                                                                                 ast.BitAnd))
                and isinstance(p.right, ast.Constant) and isinstance(p.right.value, int))

    def _store(self, node: ast.AST, obj: ast.AST, attr: str) -> None:
        """An attribute of `obj` assigned or deleted."""
        dotted = self._dotted(obj)
        if dotted is not None:
            self.add(node, "monkey-patch", f"assigns {dotted}.{attr}", f"{dotted}.{attr}")
            return
        root = self._root(obj)
        base = obj
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            base = base.value
        if root is not None and self._outlives_call(root):
            self.add(node, "module-cache", f"sets attribute '{attr}' on '{root.id}', which "
                     "outlives the call (state kept across calls)", root.id)
        elif isinstance(base, ast.Call):  # type(x).attr = ...: a class, shared by every call
            self.add(node, "monkey-patch", f"assigns '.{attr}' on the result of a call (a "
                     "class or shared object)", attr)
        elif (self._own(obj) or ("",))[0] != "instance":
            # Only an object the candidate built in this call takes new attributes: anything
            # else (an input, a Triton dtype, module state reached through a parameter, an
            # unpacked alias or a loop) may outlive the call.
            self.add(node, "module-cache", f"sets attribute '{attr}' on an object the "
                     "candidate did not build in this call (it may outlive the call)", attr)

    def _foreign_attr_write(self, target: ast.AST) -> bool:
        """Whether a write into `target` (x.a[k] = v, x.a.append(v)) goes through an attribute
        of something other than an instance the candidate built in this call: a container
        held by an input, a Triton object or module state (triton.Config.kwargs)."""
        e = target
        while isinstance(e, (ast.Attribute, ast.Subscript)):
            if isinstance(e, ast.Attribute) and (self._own(e.value) or ("",))[0] != "instance":
                return True
            e = e.value
        return False

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        torch_bases = []
        for base in node.bases:
            dotted = self._dotted(base.value if isinstance(base, ast.Subscript) else base)
            if dotted is not None and dotted.split(".")[0] == "torch":
                self.add(base, "tensor-subclass", f"class '{node.name}' derives from {dotted}",
                         dotted)
                torch_bases.append(base)
            elif self._is_builtin(base, "type"):
                self.add(base, "builtin", f"class '{node.name}' derives from type: its "
                         "instances are classes built at run time", "type")
            elif dotted is None and self._own_class(base) is None and not (
                    isinstance(base, ast.Name) and self._lookup(base.id) is None):
                # class S(type(x)): a base L1 cannot name may be torch.Tensor itself
                self.add(base, "tensor-subclass", f"class '{node.name}' derives from a value "
                         "L1 cannot name (it may be torch.Tensor)", node.name)
                torch_bases.append(base)
        for k in node.keywords:
            self.add(k.value, "dunder", f"class '{node.name}' sets {k.arg or '**kwargs'}=",
                     k.arg or "")
        for stmt in node.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                self._class_value(stmt.value)
        self._import_time(node)
        self._visit_scope(node, skip=torch_bases)

    def _import_time(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                     | ast.ClassDef) -> None:
        """A def, lambda or class statement that runs at import (at module level or in a class
        body there): what it evaluates then lives as long as the module. A decorator other
        than Triton's, dataclass and the builtin method kinds runs the candidate's code once
        and may return a closure over state (a cache) that no name shows; a default argument
        built by a call (`buf=torch.empty(n)`, `c=Cache()`) is one object shared by every
        call."""
        s = self.scope
        while s.kind == "class" and s.parent is not None:
            s = s.parent
        if s.kind != "module":
            return  # built anew on every call of the enclosing function
        for d in getattr(node, "decorator_list", []):
            f = d.func if isinstance(d, ast.Call) else d
            dotted = self._dotted(f)
            if (self._is_triton(d, self.scope) or dotted in _IMPORT_DECORATORS
                    or dotted in _CACHE_DECORATORS):  # the last are findings of their own
                continue
            if self.scope.kind == "class" and (
                    (isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod",
                                                          "property")
                     and self._lookup(d.id) is None)
                    or (isinstance(d, ast.Attribute) and d.attr in ("setter", "getter",
                                                                    "deleter")
                        and isinstance(d.value, ast.Name) and d.value.id in self.scope.bound)):
                continue
            self.add(d, "module-cache", "a decorator other than Triton's, dataclass or the "
                     "method kinds runs at import (a closure it returns keeps state across "
                     "calls)", dotted or "")
        if isinstance(node, ast.ClassDef):
            return
        a = node.args
        for d in (*a.defaults, *a.kw_defaults):
            if d is not None and not _is_container(d, self._builtins()) and not self._static(d):
                self.add(d, "module-cache", "a default argument computed by a call is built "
                         "once, at import, and shared by every call", "")

    def _visit_scope(self, node: ast.AST, skip: list[ast.expr] | None = None) -> None:
        """Visit a scope node: its outer parts here, its body in its own scope."""
        for part in _outer_parts(node):
            if not skip or part not in skip:
                self.visit(part)
        self.stack.append(self.scopes[node])
        for part in _inner_parts(node):
            self.visit(part)
        self.stack.pop()

    def visit_arguments(self, node: ast.arguments) -> None:
        # Defaults belong to the enclosing scope and were visited there.
        for a in (*node.posonlyargs, *node.args, *node.kwonlyargs, node.vararg, node.kwarg):
            if a is not None:
                self.visit(a)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        name = node.name
        if name.startswith("__") and name.endswith("__") and (
                self.scope.kind != "class" or name not in _DUNDER_DEFS):
            self.add(node, "dunder", f"defines magic method '{name}'", name)
        a = node.args
        for d in (*a.defaults, *a.kw_defaults):
            if d is not None and _is_container(d, self._builtins()):
                self.add(d, "module-cache", f"mutable default argument of '{name}' keeps "
                         "state across calls", name)
        self._import_time(node)
        self._visit_scope(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for d in (*node.args.defaults, *node.args.kw_defaults):
            if d is not None and _is_container(d, self._builtins()):
                self.add(d, "module-cache", "mutable default argument of a lambda keeps "
                         "state across calls", "lambda")
        self._import_time(node)
        self._visit_scope(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case object(gi_frame=f)` is getattr(subject, "gi_frame") with no attribute
        # expression to judge, and positional patterns read __match_args__' names; a class
        # pattern is refused whatever it names (value, sequence and mapping patterns are fine).
        self.add(node, "match", "a class pattern in 'match' reads attributes by name, out of "
                 "the scan's sight", "match")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._matmul(node, node.op)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._matmul(node, node.op)
        self.generic_visit(node)

    def _matmul(self, node: ast.AST, op: ast.operator) -> None:
        """`@` in host code: no Python number has it, so an operand is a tensor (or an object
        that forwards to one) and torch computes a matrix product. In a kernel it is tl.dot on
        Triton values, which the Triton compiler (or, on the interpreter, Triton's own numpy
        model) computes: allowed there."""
        if isinstance(op, ast.MatMult) and not self.scope.jit:
            self.add(node, "matmul", "the @ operator is torch's matrix product on tensors (use "
                     "tl.dot in a kernel)", "@")

    def _builtins(self) -> set[str]:
        return {n for n in _CONTAINER_BUILTINS if self._lookup(n) is None}

    def visit_Global(self, node: ast.Global) -> None:
        self.add(node, "global-write", f"'global {', '.join(node.names)}' rebinds module "
                 "state", ",".join(node.names))

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.add(node, "global-write", f"'nonlocal {', '.join(node.names)}' rebinds state "
                 "kept across calls", ",".join(node.names))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if isinstance(node.type, ast.Tuple):
            types: Sequence[ast.expr | None] = node.type.elts
        else:
            types = [node.type]
        if node.type is None:
            self.add(node, "broad-except", "bare 'except:' (a fallback path around a kernel)",
                     "except")
        for t in types:
            if isinstance(t, ast.Name) and t.id in ("Exception", "BaseException") \
                    and self._lookup(t.id) is None:
                self.add(node, "broad-except", f"'except {t.id}' (a fallback path around a "
                         "kernel)", t.id)
        self.generic_visit(node)

    # -- module state ------------------------------------------------------------------------

    def _module_state(self, tree: ast.Module) -> None:
        """Module-level values: constants, read-only tables, or findings."""
        builtins = self._builtins()
        assigned: dict[str, int] = {}
        hidden = {id(n) for stmt in tree.body if self._main_guard(stmt)
                  for b in stmt.body for n in ast.walk(b)}
        stmts = [n for n in _region(tree) if isinstance(n, (ast.Assign, ast.AnnAssign,
                                                              ast.AugAssign))
                 and id(n) not in hidden]
        for n in stmts:
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                for x in ast.walk(t):
                    if isinstance(x, ast.Name):
                        assigned[x.id] = assigned.get(x.id, 0) + 1
        for n in sorted(stmts, key=lambda s: (s.lineno, s.col_offset)):
            value = n.value
            if value is None:
                continue
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if _is_container(value, builtins):
                names = [t for t in targets if isinstance(t, ast.Name)]
                table = (isinstance(n, ast.Assign) and len(names) == len(targets) == 1
                         and assigned[names[0].id] == 1 and self._static_table(value))
                if table:
                    self.tables[names[0].id] = names[0]
                else:
                    self.add(value, "module-cache", "module-level mutable container (a cache "
                             "across calls); constant tables must be non-empty and read-only",
                             ",".join(x.id for x in names))
            elif not self._static(value):
                self.add(value, "module-cache", "module-level value computed at import by a "
                         "call that may hold state", "")

    def _static_table(self, value: ast.AST) -> bool:
        """A non-empty container of constants (a lookup table, autotune configs)."""
        if isinstance(value, (ast.ListComp, ast.SetComp)):
            return self._static(value.elt) and all(self._static(g) for g in value.generators)
        if isinstance(value, ast.DictComp):
            return (self._static(value.key) and self._static(value.value)
                    and all(self._static(g) for g in value.generators))
        if isinstance(value, (ast.List, ast.Set)):
            return bool(value.elts) and all(self._static(e) for e in value.elts)
        if isinstance(value, ast.Dict):
            return bool(value.keys) and all(k is not None and self._static(k) and self._static(v)
                                            for k, v in zip(value.keys, value.values))
        return False

    def _static(self, expr: ast.AST, containers: bool = False) -> bool:
        """A module-level value without state: constants, names, pure calls of them."""
        if isinstance(expr, (ast.Constant, ast.Name, ast.Lambda)):
            return True
        if isinstance(expr, (ast.List, ast.Set)) and containers:
            return all(self._static(e, True) for e in expr.elts)
        if isinstance(expr, ast.Dict) and containers:
            return all(k is not None and self._static(k, True) and self._static(v, True)
                       for k, v in zip(expr.keys, expr.values))
        if isinstance(expr, ast.Attribute):
            return self._dotted(expr, self.module) is not None or self._static(expr.value)
        if isinstance(expr, ast.Call):
            func = expr.func
            dotted = self._dotted(func, self.module)
            triton = self._is_triton(expr, self.module)
            ok = (triton or (dotted is not None and (dotted.split(".")[0] in ("math", "struct")
                                                     or dotted in _STATIC_TORCH_CALLS
                                                     or dotted in ("functools.partial",
                                                                   "dataclasses.field")))
                  or (isinstance(func, ast.Name) and func.id in _STATIC_BUILTINS
                      and self._lookup(func.id, self.module) is None))
            return ok and all(self._static(a, triton) for a in expr.args) and all(
                self._static(k.value, triton) for k in expr.keywords)
        if isinstance(expr, (ast.Tuple, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
                             ast.IfExp, ast.Subscript, ast.Slice, ast.Starred, ast.JoinedStr,
                             ast.FormattedValue, ast.GeneratorExp, ast.comprehension,
                             ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.expr_context,
                             ast.keyword)):
            return all(self._static(c, containers) for c in ast.iter_child_nodes(expr))
        return False

    def _class_value(self, value: ast.AST) -> None:
        if _is_container(value, self._builtins()):
            self.add(value, "module-cache", "class-level mutable container (shared across "
                     "calls)", "")
        elif not self._static(value):
            self.add(value, "module-cache", "class-level value computed by a call that may "
                     "hold state", "")

    def _table_use(self, node: ast.Name) -> None:
        """A use of a module-level table must leave it unchanged and unaliased."""
        p = self.parents.get(node)
        gp = self.parents.get(p) if p is not None else None
        ok = ((isinstance(p, ast.Subscript) and p.value is node and isinstance(p.ctx, ast.Load))
              or (isinstance(p, ast.Attribute) and p.attr in _TABLE_METHODS
                  and isinstance(gp, ast.Call) and gp.func is p)
              or (isinstance(p, ast.Compare) and node in p.comparators
                  and all(isinstance(op, (ast.In, ast.NotIn)) for op in p.ops))
              or (isinstance(p, (ast.For, ast.AsyncFor, ast.comprehension)) and p.iter is node)
              or (isinstance(p, ast.Call) and node in p.args and isinstance(p.func, ast.Name)
                  and p.func.id in _TABLE_FUNCS and self._lookup(p.func.id) is None)
              or (isinstance(p, ast.keyword) and p.arg == "configs" and isinstance(gp, ast.Call)
                  and self._dotted(gp.func) == "triton.autotune"))
        if not ok:
            self.add(node, "module-cache", f"module-level table '{node.id}' used other than "
                     "read-only (a cache across calls)", node.id)


def _format_attrs(fmt: str) -> list[str]:
    """Attribute names a str.format string reads: "{0.a.b[k]:{1.c}}" -> a, b, c."""
    out: list[str] = []
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return out  # .format would raise on it too
    for _, name, spec, _ in fields:
        if name:
            out += [a for a in re.findall(r"\.([^.\[\]]*)", re.sub(r"\[[^\]]*\]", "", name))]
        if spec:
            out += _format_attrs(spec)
    return out


def _encoding_findings(source: str) -> list[Finding]:
    """A PEP 263 declaration other than UTF-8 makes the importer read other text than L1.

    Lines are split as Python's tokenizer splits them (str.splitlines also splits at \\v, \\f
    and others, which would move a declaration out of sight), and both lines are checked even
    where Python would look at one only.
    """
    out = []
    for i, line in enumerate(re.split(r"\r\n|\r|\n", source, maxsplit=2)[:2]):
        m = re.match(_CODING_RE, line)
        if m:
            enc = m.group(1).lower().replace("_", "-")
            if not (enc in ("utf8", "utf-8") or enc.startswith("utf-8-")):
                out.append(Finding(i + 1, 0, "encoding", f"source declares encoding '{enc}'; "
                                   "candidates must be UTF-8"))
    return out


def scan(source: str, filename: str, allow: frozenset[str] = frozenset()) -> list[Finding]:
    """Findings of the static scan, ordered by position; empty means the candidate may load.

    `source` is the candidate's text (decoded as UTF-8), `filename` is used for syntax errors.
    `allow` holds a task's extra allowances: dotted names (torch.ops.aten, numpy), method names
    (sum), builtins, or rule ids; a dotted name allows everything beneath it. Raises SyntaxError
    (and ValueError, for text the parser refuses) like `compile` would.
    """
    findings = _encoding_findings(source)
    tree = ast.parse(source, filename=filename)
    try:
        scanner = _Scanner(tree, allow)
        scanner.visit(tree)
        findings += scanner.findings
    except RecursionError:
        findings.append(Finding(1, 0, "unscannable", "the syntax tree is too deep to analyse"))
    seen: set[tuple[int, int, str]] = set()
    out = []
    # By position; at one position the more specific rule first (RULES order).
    for f in sorted(findings, key=lambda f: (f.line, f.col, RULES.index(f.rule))):
        if (f.line, f.col, f.rule) not in seen:
            seen.add((f.line, f.col, f.rule))
            out.append(f)
    return out
