"""vLLM's own kernels through torch.ops: the speedup baseline of the vLLM tasks (their baseline.py).

`op(namespace, name, schema=None)` returns `torch.ops.<namespace>.<name>` after importing the
compiled vLLM extension that registers that namespace (NAMESPACES, read from vLLM's sources):

    _C            vllm._C      csrc/torch_bindings.cpp,
                               TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)
    _C_cache_ops  vllm._C      same file,
                               TORCH_LIBRARY_EXPAND(CONCAT(TORCH_EXTENSION_NAME, _cache_ops), ...)
    _moe_C        vllm._moe_C  csrc/moe/torch_bindings.cpp,
                               TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m)

(the extension's TORCH_EXTENSION_NAME is its module name: `_C`, `_moe_C`).

It raises ImportError, with the reason, when vLLM (or that extension) does not import, when the
op is not registered (NotRegistered, a subclass), or when `schema` is given and the registered
op cannot be called with it: a baseline.py resolves its ops at import, so the worker then keeps
the reference as the baseline and records why (docs/task-format.md), instead of failing every
timed case of a task whose signature another vLLM version changed. `schema` is the task's
signature (task.json, with vLLM's op name): the registered op must take the same argument types
in the same order (names are not compared: the tasks rename a few), any further arguments must
have defaults, and the returns must have the same types. `version()` is the installed vLLM's
version (vllm.__version__), or None without vLLM; the run manifest records it
(runtime/platform.py).

Nothing here has run against a real vLLM (not installable on our machines); the tests use a
fake namespace (tests/runtime/test_vllm_ops.py).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from typing import Any

import torch

class NotRegistered(ImportError):
    """vLLM imports but registers no op of that name (another version: renamed or removed)."""


# torch.ops namespace -> the vLLM module whose import registers it
NAMESPACES = {"_C": "vllm._C", "_C_cache_ops": "vllm._C", "_moe_C": "vllm._moe_C"}


def version() -> str | None:
    """The installed vLLM's version, or None where there is none: vllm.__version__ once vLLM is
    imported, else its distribution's version from the package metadata, without importing
    it (an import is slow and may log to stdout, which the platform probe's single JSON line
    must not carry)."""
    module = sys.modules.get("vllm")
    if module is not None and getattr(module, "__version__", None):
        return str(module.__version__)
    try:
        return importlib.metadata.version("vllm")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


def _types(args: Any) -> list[str]:
    return [str(a.type).replace("SymInt", "int") for a in args]


def _schema_mismatch(live: Any, expected: str) -> str | None:
    """Why `live` (a torch FunctionSchema) cannot be called as `expected`, or None."""
    want = torch._C.parse_schema(expected)
    have_args, want_args = _types(live.arguments), _types(want.arguments)
    if (have_args[:len(want_args)] != want_args
            or any(not a.has_default_value() for a in live.arguments[len(want_args):])
            or _types(live.returns) != _types(want.returns)):
        return f"registered as '{live}', the task calls '{want}'"
    return None


def op(namespace: str, name: str, schema: str | None = None) -> Any:
    """torch.ops.<namespace>.<name> from vLLM's extension; ImportError saying why where it is
    not there (or, with `schema`, not callable with the task's arguments)."""
    module = NAMESPACES.get(namespace)
    if module is None:
        raise ImportError(f"vllm_ops: no vLLM extension is known to register torch.ops."
                          f"{namespace} (known: {', '.join(sorted(NAMESPACES))})")
    try:
        importlib.import_module(module)
    except Exception as e:
        raise ImportError(f"vLLM's {module} (torch.ops.{namespace}) does not import: "
                          f"{type(e).__name__}: {e}") from e
    try:
        packet = getattr(getattr(torch.ops, namespace), name)
        live = packet.default._schema
    except (AttributeError, RuntimeError) as e:
        raise NotRegistered(f"vLLM {version() or '(unknown version)'} registers no "
                            f"torch.ops.{namespace}.{name}") from e
    if schema is not None:
        why = _schema_mismatch(live, schema)
        if why:
            raise ImportError(f"vLLM {version() or '(unknown version)'}: torch.ops."
                              f"{namespace}.{name} {why}")
    return packet
