"""L1's tables: the rule ids, the Finding record, and the name lists the rules read.

Hard-coded on purpose: nothing is imported or computed at import (docs/anti-hack.md describes
the allow-list's structure). The scan itself is runtime.guards.scan.
"""

from __future__ import annotations

from dataclasses import dataclass


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
