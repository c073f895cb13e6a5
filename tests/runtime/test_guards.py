"""Tests of runtime.guards (anti-hack L1): each rule fires, honest code does not, and no
shipped solution is flagged."""

import json
import textwrap
from pathlib import Path

import pytest

from runtime.guards import RULES, Finding, scan

ROOT = Path(__file__).resolve().parents[2]
HACKS = ROOT / "tests" / "hacks"

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"


def rules(src: str, allow: frozenset[str] = frozenset()) -> list[str]:
    return [f.rule for f in scan(HEADER + textwrap.dedent(src), "c.py", allow)]


def first(src: str) -> Finding:
    found = scan(HEADER + textwrap.dedent(src), "c.py")
    assert found, "expected a finding"
    return found[0]


# Each row: (rule expected first, snippet). The header above imports torch, triton and tl.
FIRING = [
    ("torch-api", "def f(x):\n    return torch.mul(x, 2)\n"),
    ("torch-api", "import torch as T\ndef f(x):\n    return T.mul(x, 2)\n"),
    ("torch-api", "from torch import mul as m\n"),
    ("torch-api", "def f(x):\n    return getattr(torch, 'mul')(x, 2)\n"),
    ("torch-api", "def f(x):\n    return getattr(getattr(torch, 'nn'), 'functional').relu(x)\n"),
    ("torch-api", "def f(x):\n    return torch.ops.aten.mul.Tensor(x, 2)\n"),
    ("torch-api", "import torch.nn.functional as F\n"),
    ("torch-api", "from torch.nn import functional\n"),
    ("torch-api", "f = torch.compile(lambda x: x)\n"),
    ("torch-api", "def f(x):\n    return torch._dynamo\n"),
    ("torch-api", "def f(x):\n    return torch.cuda.synchronize()\n"),
    ("torch-api", "def f(x):\n    return torch.cuda.Stream()\n"),
    ("torch-api", "from torch.utils.cpp_extension import load_inline\n"),
    ("torch-api", "def f(x):\n    return torch.Tensor.sum(x)\n"),
    ("torch-api", "def f(x):\n    return torch.arange(4)\n"),
    ("torch-api", "def f(x, t=torch):\n    return t\n"),  # the module passed around
    ("torch-api", "@triton.jit\ndef k(x):\n    torch.mul(x, 2)\n"),  # interpreter-only trick
    ("tensor-method", "def f(x):\n    return x.sum()\n"),
    ("tensor-method", "def f(x):\n    return x.clone()\n"),
    ("tensor-method", "def f(x):\n    return x.to(torch.float32)\n"),
    ("tensor-method", "def f(x):\n    return x.float().item()\n"),
    ("tensor-method", "def f(x):\n    return x.data_ptr()\n"),
    ("tensor-method", "def f(x):\n    g = x.mul\n    return g(2)\n"),
    ("tensor-method", "def f(x):\n    return getattr(x, 'sum')()\n"),
    ("tensor-method", "def f(x):\n    return x.type(torch.float16)\n"),
    ("tensor-method", "def f(x):\n    return x.max()\n"),
    ("tensor-method", "def f(x, d):\n    d.sort()\n"),  # d could be a tensor
    # call-only names read as values only where they cannot be called later
    ("tensor-method", "def f(x):\n    g = x.max\n    return g()\n"),
    ("tensor-method", "def f(x, run):\n    return run(x.type, torch.float16)\n"),
    # frames, generators, coroutines, tracebacks, code, a function's globals: by name, anywhere
    ("introspection", "def f():\n    g = (x for x in ())\n    return g.gi_frame.f_back\n"),
    ("introspection", "def f():\n    try:\n        pass\n    except ValueError as e:\n"
                      "        return e.__traceback__.tb_frame\n"),
    ("introspection", "def f(x):\n    return f.__globals__\n"),
    ("introspection", "def f(x):\n    return len.__self__\n"),  # the builtins module
    ("introspection", "async def f(c):\n    return c.cr_frame\n"),
    ("introspection", "def f(c):\n    return c.co_consts\n"),
    ("introspection", "def f(x):\n    return getattr(x, 'f_locals')\n"),
    ("introspection", "class C:\n    def m(self):\n        return self.gi_frame\n"),
    ("introspection", "def f(g):\n    return '{0.gi_frame.f_back}'.format(g)\n"),
    ("introspection", "@triton.jit\ndef k(x):\n    return x.f_back\n"),
    ("match", "def f(x):\n    match x:\n        case object(gi_frame=fr):\n"
              "            return fr\n"),
    ("match", "def f(x):\n    match x:\n        case torch.Tensor():\n            return 1\n"),
    ("private-attr", "def f(t):\n    return t._base\n"),
    ("private-attr", "def f(t):\n    return t._addmm_activation(t, t)\n"),
    ("private-attr", "import dataclasses\ndef f():\n    return dataclasses._create_fn\n"),
    ("private-attr", "import typing\ndef f():\n    return typing._eval_type\n"),
    ("private-attr", "from typing import _eval_type\n"),
    ("private-attr", "def f(x):\n    return getattr(x, '_cdata')\n"),
    ("private-attr", "def f(x):\n    return '{0._base}'.format(x)\n"),
    ("private-attr", "@triton.jit\ndef k(x):\n    return x._flatten_ir\n"),
    ("private-attr", "class C:\n    pass\ndef f(x):\n    return C()._base\n"),  # not C's
    ("attribute", "def f(e):\n    return e.args\n"),
    ("attribute", "import functools\ndef f(p):\n    return functools.partial(p).func\n"),
    ("attribute", "def f(x):\n    return type(x).shape\n"),
    ("attribute", "class C:\n    def m(self):\n        return 1\ndef f(x):\n    return C.m(x)\n"),
    ("attribute", "def f(fmt, x):\n    return fmt.format(x)\n"),
    ("attribute", "@triton.jit\ndef k(x):\n    return x.mul(2)\n"),  # no Triton tensor method
    ("attribute", "@triton.jit\ndef k(x):\n    return x.handle\n"),  # the interpreter's buffer
    ("attribute", "def f():\n    m = typing\n    return m.sys\n"),
    # an own class's method read through something that may be the class: unbound, its self
    # (trusted inside the method) would be any object, dataclasses the module included
    ("attribute", "import dataclasses\nclass C:\n    def __init__(self):\n"
                  "        self._create_fn = None\n    def get(self, *a):\n"
                  "        return self._create_fn(*a)\n"
                  "def f(x):\n    (c,) = (C,)\n    return c.get(dataclasses, 'g', (), [])\n"),
    ("attribute", "class C:\n    def m(self):\n        return self\n    n = m\n"
                  "def f(x):\n    return C.n(x)\n"),
    ("matmul", "def f(a, b):\n    return a @ b\n"),
    ("matmul", "def f(a, b):\n    a @= b\n    return a\n"),
    ("triton-api", "import triton.testing\n"),
    ("triton-api", "def f():\n    return triton.testing.do_bench(f)\n"),
    ("triton-api", "def f():\n    return triton.runtime.driver.active\n"),
    ("triton-api", "from triton.runtime import driver\n"),
    ("triton-api", "def f():\n    return triton._C\n"),
    ("triton-api", "def f():\n    return triton.compile\n"),
    ("triton-api", "def f(m=tl):\n    return m\n"),
    # the interpreter runs a directly called kernel as Python: its body is not judged as host code
    ("triton-api", "@triton.jit\ndef k(x):\n    return x * 2\ndef f(x):\n    return k(x)\n"),
    ("triton-api", "@triton.jit\ndef k(x):\n    return x * 2\ndef f(x):\n    return k.fn(x)\n"),
    ("triton-api", "@triton.jit\ndef k(x):\n    pass\ndef f(x, c):\n    g = k if c else k\n"
                   "    return g(x)\n"),
    ("triton-api", "@triton.jit\ndef k(x):\n    pass\ndef run(kern, x):\n    return kern(x)\n"
                   "def f(x):\n    return run(k, x)\n"),
    ("monkey-patch", "torch.cuda.Event.elapsed_time = lambda *a: 1.0\n"),
    ("monkey-patch", "def f():\n    tl.store = None\n"),
    ("monkey-patch", "setattr(triton, 'jit', None)\n"),
    ("monkey-patch", "del torch.add\n"),
    ("monkey-patch", "def f(x):\n    type(x).last = x\n"),  # state on torch.Tensor itself
    ("import", "import numpy\n"),
    ("import", "import numpy as np\n"),
    ("import", "import os.path\n"),
    ("import", "from ctypes import CDLL\n"),
    ("import", "import importlib\n"),
    ("import", "from . import helper\n"),
    ("import", "from math import *\n"),
    ("import", "def f():\n    import subprocess\n"),
    # modules that allowed modules hold as attributes
    ("import", "import typing\ndef f():\n    return typing.sys.modules\n"),
    ("import", "import dataclasses\ndef f():\n    return dataclasses.builtins.eval\n"),
    ("import", "from typing import sys\n"),
    ("import", "def f():\n    return tl.core.builtins.exec\n"),
    ("import", "def f():\n    return triton.language.core.inspect.currentframe()\n"),
    ("import", "def f():\n    return torch.types.builtins\n"),
    ("builtin", "exec('x = 1')\n"),
    ("builtin", "def f():\n    return eval('1')\n"),
    ("builtin", "t = __import__('torch')\n"),
    ("builtin", "def f():\n    return globals()['torch']\n"),
    ("builtin", "def f():\n    return vars(torch)\n"),
    ("builtin", "def f():\n    return open('/proc/self/mem', 'rb')\n"),
    ("builtin", "def f():\n    return compile('1', 'x', 'eval')\n"),
    ("builtin", "S = type('S', (object,), {})\n"),
    ("builtin", "def f(g=exec):\n    return g\n"),
    ("builtin", "import functools\n@functools.singledispatch\ndef g(x):\n    pass\n"),
    ("builtin", "import typing\ndef f(x):\n    return typing.get_type_hints(f)\n"),
    ("dynamic-attr", "def f(x, n):\n    return getattr(x, n)\n"),
    ("dynamic-attr", "def f(x):\n    return getattr(torch, 'm' + 'ul')(x, 2)\n"),
    ("dynamic-attr", "def f(x, n):\n    setattr(x, n, 1)\n"),
    ("dynamic-attr", "g = getattr\n"),
    ("dunder", "def f(x):\n    return x.__class__.__bases__\n"),
    ("dunder", "def f(x):\n    return x.__init__(1)\n"),  # only super().__init__(...)
    ("dunder", "def f(x):\n    return __builtins__\n"),
    ("dunder", "def f(x):\n    return getattr(x, '__dict__')\n"),
    ("dunder", "def __getattr__(name):\n    return name\n"),
    ("dunder", "class C:\n    def __torch_function__(self, *a):\n        pass\n"),
    ("dunder", "class C:\n    def __exit__(self, *a):\n        return True\n"),
    ("dunder", "class C(metaclass=type):\n    pass\n"),
    ("dunder", "__name__ = '__main__'\n"),
    ("tensor-subclass", "class S(torch.Tensor):\n    pass\n"),
    ("tensor-subclass", "from torch import Tensor as B\nclass S(B):\n    pass\n"),
    ("tensor-subclass", "def f(x):\n    class S(type(x)):\n        pass\n"),  # torch.Tensor
    ("builtin", "class M(type):\n    pass\n"),  # classes built at run time, like type(a, b, c)
    ("introspection", "def f(fr, g):\n    setattr(fr, 'f_trace', g)\n"),
    ("global-write", "_x = 0\ndef f():\n    global _x\n    _x = 1\n"),
    ("global-write", "def f():\n    n = 0\n    def g():\n        nonlocal n\n        n = 1\n"),
    ("module-cache", "_cache = {}\n"),
    ("module-cache", "_cache = dict()\n"),
    ("module-cache", "_seen = []\n"),
    ("module-cache", "_x = [1, 2]\ndef f():\n    _x.append(3)\n"),
    ("module-cache", "_T = {1: 2}\ndef f(k, v):\n    _T[k] = v\n"),
    ("module-cache", "_T = {1: 2}\ndef f():\n    t = _T\n    return t\n"),
    ("module-cache", "_T = {1: [2]}\n"),  # mutable values could be appended to
    ("module-cache", "import functools\n@functools.lru_cache(None)\ndef f(x):\n    return x\n"),
    ("module-cache", "from functools import cache\n"),
    ("module-cache", "def f(x, _c={}):\n    return _c\n"),
    ("module-cache", "g = lambda x, _c=[]: _c\n"),
    ("module-cache", "def f(x):\n    f.last = x\n"),
    ("module-cache", "def m(fn):\n    c = {}\n    def g(x):\n        c[x] = 1\n"
                     "        return fn(x)\n    return g\n"),
    ("module-cache", "def mk():\n    return None\n_S = mk()\n"),
    ("module-cache", "class C:\n    seen = []\n"),
    # state reached through aliases, parameters and import-time code (docs/anti-hack.md)
    ("module-cache", "class C:\n    s = None\ndef f(k, v):\n    c = C\n    c.s = {}\n"),
    ("module-cache", "class C:\n    s = None\ndef f(k, v):\n    c = C if k else None\n"
                     "    c.s[k] = v\n"),
    ("module-cache", "def g(x):\n    pass\ndef f(x):\n    h = (g := g)\n    h.last = x\n"),
    ("module-cache", "def m(fn):\n    c = {}\n    def g(x):\n        d = c\n        d[x] = 1\n"
                     "        return fn(x)\n    return g\n"),  # a closure's dict, aliased
    ("module-cache", "_T = (1,)\ndef f(x):\n    t = x if x else _T\n    t.append(x)\n"),
    ("module-cache", "def f(x):\n    x.cache = 1\n"),  # an input, or anything passed in
    ("module-cache", "class C:\n    pass\ndef f(x):\n    (c,) = (C,)\n    c.s = x\n"),
    ("module-cache", "def f(cfg):\n    cfg.kwargs['B'] = 1\n"),  # a module-level Config
    ("module-cache", "_C = [triton.Config({'B': 64})]\ndef f():\n    for c in _C:\n"
                     "        c.kwargs.update(B=1)\n"),
    ("module-cache", "def f(x, buf=torch.empty(4)):\n    return buf\n"),
    ("module-cache", "class C:\n    pass\ndef f(x, c=C()):\n    return c\n"),
    ("module-cache", "def deco(fn):\n    return fn\n@deco\ndef f(x):\n    return x\n"),
    ("module-cache", "def deco(c):\n    return c\n@deco\nclass C:\n    pass\n"),
    ("broad-except", "def f():\n    try:\n        pass\n    except:\n        pass\n"),
    ("broad-except", "def f():\n    try:\n        pass\n    except Exception:\n        pass\n"),
    ("broad-except", "def f():\n    try:\n        pass\n    except (ValueError, BaseException):"
                     "\n        pass\n"),
]


@pytest.mark.parametrize("rule,src", FIRING)
def test_rule_fires(rule: str, src: str) -> None:
    assert first(src).rule == rule, scan(HEADER + src, "c.py")


def test_every_rule_has_a_test() -> None:
    tested = {r for r, _ in FIRING} | {"encoding", "unscannable"}
    assert tested == set(RULES)


HONEST = [
    # allocation, metadata and views
    "def f(x):\n    y = torch.empty_like(x)\n    z = torch.empty(x.shape, dtype=x.dtype,"
    " device=x.device)\n    return y.view(-1), z.reshape(-1).contiguous(), x.stride(0)\n",
    "def f(x, out):\n    out.resize_(x.shape)\n    out.copy_(x)\n    return out\n",
    "def f(x):\n    return torch.finfo(x.dtype).max, torch.iinfo(torch.int32).min,"
    " torch.float16.itemsize\n",
    "def f(x):\n    return x.device.type == 'cpu', x.type()\n",
    "def f(x):\n    return torch.cuda.get_device_properties(0).multi_processor_count\n",
    "def f(a, b):\n    return torch.broadcast_shapes(a.shape, b.shape), torch.result_type(a, b)\n",
    "def f(x):\n    return torch.view_as_real(x), torch.Tensor.view(x, -1)\n",
    "def f(x):\n    return x.data_ptr() % 16 == 0\n",
    "def f(x) -> torch.Tensor:\n    assert isinstance(x, torch.Tensor)\n    return x\n",
    # Python containers, sorting, sets
    "def f(x):\n    dims = [(x.shape[d], x.stride(d)) for d in range(x.dim())]\n"
    "    dims.sort(key=lambda t: -t[1])\n    seen = set()\n    seen.add(1)\n    return dims\n",
    # kernels: every method on Triton tensors is fine
    "@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n    o = tl.arange(0, B)\n"
    "    v = tl.load(x_ptr + o, mask=o < n).to(tl.float32)\n    s = v.sum(0)\n"
    "    tl.store(x_ptr, s.to(x_ptr.dtype.element_ty))\n",
    "def _impl(x):\n    return x.to(tl.float32).sum(0)\n_k = triton.jit(_impl)\n",
    "@triton.autotune(configs=[triton.Config({'B': 64}, num_warps=4)], key=['n'])\n"
    "@triton.heuristics({'E': lambda a: a['n'] % 64 == 0})\n@triton.jit\n"
    "def k(x, n, B: tl.constexpr, E: tl.constexpr):\n    pass\n",
    "_CONFIGS = [triton.Config({'B': b}) for b in (64, 128)]\n",  # comprehension: a container
    # kernels picked or handed to a helper that only launches them
    "@triton.jit\ndef a(x):\n    pass\n@triton.jit\ndef b(x):\n    pass\n"
    "def run(kern, x):\n    kern[(1,)](x)\n"
    "def f(x, c):\n    k = a if c else b\n    k[(1,)](x)\n    run(b, x)\n    run(kern=a, x=x)\n"
    "    (a if c else b)[(1,)](x)\n",
    # module-level constants and read-only tables
    "_BLOCK = 1024\n_DIMS, _W = (6, 4)\n_LOG2E = math.log2(math.e)\n_F = (torch.float16, torch.bfloat16)\n"
    "_TL = {torch.float16: tl.float16, torch.float32: tl.float32}\n"
    "def f(d):\n    return _TL[d], _TL.get(d), d in _TL, len(_TL), [k for k in _TL]\n",
    "_C = [triton.Config({'B': 64})]\n@triton.autotune(configs=_C, key=['n'])\n@triton.jit\n"
    "def k(x, n, B: tl.constexpr):\n    pass\n",
    "__all__ = ['f']\n",
    # names that shadow banned builtins are locals, not the builtins
    "def f(input, eval=1):\n    return input, eval\n",
    # helper classes, the __main__ guard (never runs on import), struct for host-side bits
    "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass P:\n    a: int = 0\n"
    "    def __post_init__(self):\n        pass\n",
    "import struct\ndef f(v):\n    return struct.unpack('f', struct.pack('f', v))[0]\n",
    "if __name__ == '__main__':\n    import numpy\n    print(torch.randn(3).sum())\n",
    "def f(x):\n    try:\n        return int(x)\n    except ValueError:\n        return 0\n",
    "from triton.language.extra import libdevice\nfrom triton.language.extra.cuda import libdevice"
    " as ld\nimport triton.language.math\n",
    "from typing import Any, Optional\nfrom functools import partial, reduce\n",
    "def f(x):\n    return tl.math.exp, triton.language.random.rand, tl.extra.cuda.libdevice\n",
    "# -*- coding: utf-8 -*-\n",
    # look-alikes of the allow-list's refusals: generators and exceptions without their frames
    "def f(xs):\n    g = (x * 2 for x in xs)\n    return next(g)\n",
    "def f(x):\n    try:\n        return int(x)\n    except ValueError as e:\n"
    "        raise RuntimeError(str(e)) from e\n",
    # the candidate's own classes: private members, self, cls, super(), static access
    "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    block: int = 64\n"
    "    _warps: int = 4\n    def grid(self, n):\n        return (triton.cdiv(n, self.block),"
    " self._warps)\n    @staticmethod\n    def pick(n):\n        return Cfg(128) if n > 4096"
    " else Cfg()\n    @classmethod\n    def small(cls):\n        return cls(cls.block // 2)\n"
    "def f(x):\n    c = Cfg(128) if x.numel() > 4096 else Cfg()\n"
    "    return c.grid(x.numel()), c._warps, Cfg.block, Cfg.small(), Cfg.pick(1)\n",
    "class Launch:\n    def __init__(self, n):\n        self._n = n\n        self.parts = []\n"
    "    def add(self, p):\n        self.parts.append(p)\n        self.parts[0] = p\n"
    "        self.n_parts = len(self.parts)\n        return self\n"
    "class Big(Launch):\n    def __init__(self, n):\n        super().__init__(n)\n"
    "        self.big = True\n    @property\n    def size(self):\n"
    "        super().add(1)\n        return self._n, self.parts\n"
    "def f(x):\n    b = Big(x.numel())\n    b.add(2)\n    b.extra = 1\n"
    "    return b.size, b.big, b._n, b.extra, type(b).__name__\n",
    # @ is tl.dot inside a kernel
    "@triton.jit\ndef k(a_ptr, B: tl.constexpr):\n    o = tl.arange(0, B)\n"
    "    a = tl.load(a_ptr + o[:, None] * B + o[None, :])\n    c = a @ a\n    c @= a\n"
    "    tl.store(a_ptr + o[:, None] * B + o[None, :], c.to(a_ptr.dtype.element_ty))\n",
    # value, sequence and mapping patterns
    "def f(d, m):\n    match d:\n        case torch.float16 | torch.bfloat16:\n"
    "            return 2\n"
    "        case _:\n            pass\n    match m:\n        case {'k': v, **rest}:\n"
    "            return v, rest\n        case [a, *more]:\n            return a\n",
    # constant format strings, Python values' methods, the metadata objects of torch and triton
    "def f(x):\n    return '{0.shape} {1:>{2}}'.format(x, 1, 3) + '{}'.format(x.dtype)\n",
    "def f(x, n):\n    return n.bit_length(), ','.join(['a']), x.device.index, x.dtype.itemsize,"
    " torch.finfo(x.dtype).eps, torch.cuda.get_device_properties(0).warp_size\n",
    "def f(x, d, dt):\n    info = torch.finfo(dt)\n    dev = x.device\n    lo = info.min\n"
    "    big = 0 if d else torch.iinfo(x.dtype).max\n    t = dev.type\n"
    "    return lo, big, t, d.type == 'cuda', -x.device.index\n",
    "def prune(configs, named_args, **kw):\n    return [c for c in configs if c.kwargs['B'] <="
    " named_args['n'] and c.num_warps >= 4]\n",
    "_TL = {torch.float16: tl.float16}\ndef f(d):\n    return _TL[d].primitive_bitwidth,"
    " _TL[d].is_floating()\n",
    # local aliases of constants and functions; writes into the candidate's own locals
    "_B = 64\ndef _h(x):\n    return x\ndef f(x):\n    b = _B\n    g = _h\n    l = [1]\n"
    "    l[0] = b\n    return g(l)\n",
    # decorators and defaults evaluated per call (nested), not at import
    "def f(x):\n    def deco(fn):\n        return fn\n    @deco\n    def g(y, n=len(x.shape)):\n"
    "        return y\n    return g(x)\n",
    "import functools\ndef f(fn):\n    @functools.wraps(fn)\n    def g(*a):\n        return fn(*a)"
    "\n    return g\n",
]


@pytest.mark.parametrize("src", HONEST)
def test_honest_code_is_clean(src: str) -> None:
    assert scan(HEADER + "import math\n" + src, "c.py") == []


def test_allow_extends_by_name_prefix_and_rule() -> None:
    src = "def f(x):\n    return torch.ops.aten.mul.Tensor(x, 2).sum()\n"
    assert rules(src) == ["torch-api", "tensor-method"]
    assert rules(src, frozenset({"torch.ops.aten"})) == ["tensor-method"]
    assert rules(src, frozenset({"torch.ops.aten", "sum"})) == []
    assert rules("import numpy\n", frozenset({"import"})) == []
    # an attribute name extends the allow-list (a task's `allow`), as does the rule id
    assert rules("def f(e):\n    return e.args\n") == ["attribute"]
    assert rules("def f(e):\n    return e.args\n", frozenset({"args"})) == []
    assert rules("def f(x):\n    return x.data_ptr()\n", frozenset({"data_ptr"})) == []
    assert rules("def f(t):\n    return t._base\n", frozenset({"private-attr"})) == []


def test_allow_list_tables_are_consistent() -> None:
    """The allow-lists never admit what a rule by name refuses, nor a torch compute method
    outside the call-only ones (they would bypass tensor-method's judgement)."""
    from runtime.guard_tables import (_BANNED_METHODS, _CALL_ONLY, _HOST_ATTRS,
                                      _INTROSPECTION, _INTROSPECTION_PREFIXES, _KERNEL_ATTRS)
    for table in (_HOST_ATTRS, _KERNEL_ATTRS):
        assert not {a for a in table if a.startswith("_")}
        assert not table & _INTROSPECTION
        assert not {a for a in table if a.startswith(_INTROSPECTION_PREFIXES)}
    assert "handle" not in _KERNEL_ATTRS
    # torch compute names in the host list are judged by tensor-method first, which lets them
    # through only on containers bound in the same function (set.add, list.sort) and, for the
    # call-only ones, read as values (device.type, finfo(d).max)
    assert _HOST_ATTRS & _BANNED_METHODS == _CALL_ONLY | {"add", "sort"}


def test_finding_order_and_text() -> None:
    found = scan("import os\nimport torch\n\n\ndef f(x):\n    return torch.mul(x, 2)\n", "c.py")
    assert [(f.line, f.rule) for f in found] == [(1, "import"), (6, "torch-api")]
    assert str(found[1]).startswith("line 6: torch-api: torch.mul ")
    assert found[1].col == 11


def test_encoding_must_be_utf8() -> None:
    found = scan("# expect\n# -*- coding: utf-7 -*-\nx = 1 +ACM- hidden\n", "c.py")
    assert [(f.line, f.rule) for f in found] == [(2, "encoding")]
    assert scan("# -*- coding: utf_8 -*-\n", "c.py") == []
    # Python splits lines at \n and \r only (str.splitlines would also split at \v)
    assert [f.rule for f in scan("#a\x0bb\n# coding: utf-7\nx = 1\n", "c.py")] == ["encoding"]
    # stricter than Python, which reads line 2 only after a comment line
    assert [f.rule for f in scan("x = 1\n# coding: latin-1\n", "c.py")] == ["encoding"]


def test_deep_tree_is_unscannable_not_trusted() -> None:
    src = "x = " + "-" * 5000 + "1\n"
    try:
        found = scan(src, "c.py")
    except (SyntaxError, RecursionError, MemoryError):
        return  # the parser itself refused: the worker fails closed on those too
    assert [f.rule for f in found] == ["unscannable"]


def test_syntax_errors_propagate() -> None:
    with pytest.raises(SyntaxError):
        scan("def f(:\n", "c.py")


def shipped_solutions() -> list[Path]:
    return sorted(ROOT.glob("tasks/*/*/solution.py")) + sorted(
        ROOT.glob("tests/cli/fixtures/*/aten/*/solution.py"))


@pytest.mark.parametrize("path", shipped_solutions(), ids=lambda p: "/".join(p.parts[-3:-1]))
def test_shipped_solution_scans_clean(path: Path) -> None:
    """Zero false positives: a shipped solution flagged by L1 is a bug in L1 or a cheat. The
    scan gets the task's own `allow` list, as kgb sends it with the job."""
    spec = path.parent / "task.json"
    allow = json.loads(spec.read_text("utf-8")).get("allow", []) if spec.exists() else []
    assert scan(path.read_text("utf-8"), str(path), frozenset(allow)) == []


BOUNDARY = ("boundary", "boundary-gpu")  # past L1 by their task's allowances (t0135)


def corpus() -> list[Path]:
    return sorted(p for p in HACKS.glob("*/*.py") if p.parent.name not in BOUNDARY)


@pytest.mark.parametrize("path", sorted(p for d in BOUNDARY for p in (HACKS / d).glob("*.py")),
                         ids=lambda p: "/".join(p.parts[-2:]))
def test_boundary_corpus_needs_allowances(path: Path) -> None:
    """The trust boundary's attacks reach the runner only because their task allows os, sys
    and introspection (tests/cli/t0135-trust-boundary.sh): without that, L1 stops each."""
    assert scan(path.read_text("utf-8"), str(path))


@pytest.mark.parametrize("path", corpus(), ids=lambda p: "/".join(p.parts[-2:]))
def test_hack_corpus(path: Path) -> None:
    """Each file's first line says what L1 makes of it; the CLI test checks kgb's verdict."""
    header = path.read_text("utf-8").splitlines()[0].split()
    found = scan(path.read_text("utf-8"), str(path))
    if header[:4] == ["#", "expect:", "hack", "L2"] or header[:3] == ["#", "expect:", "mismatch"]:
        # L1 must let it through; L2 or the checker catches it (tests/cli/t0130-hacks.sh)
        assert found == []
    else:
        assert header[:4] == ["#", "expect:", "hack", "L1"], header
        assert found and found[0].rule == header[4], found
