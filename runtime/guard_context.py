"""What the L1 scan knows of a candidate's names, and where its findings go.

The scopes of the module, its functions, classes and comprehensions (which names each binds,
and to what), name resolution through them (`import torch as T` makes `T.mul` torch.mul; a
local that shadows a name is not taken for it), and _Context: the walk's shared state, the
base of runtime.guard_scan's _Scanner, which records findings with the task's allowances.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from runtime.guard_tables import _CONTAINER_BUILTINS, _CONTAINER_RESULTS, _MESSAGE_CAP, Finding


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


class _Context:
    """The scan's state (the tree's parents and scopes, the scope stack, the module's tables
    and kernels, the findings) and the resolution of names through the scopes."""

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

    def _builtins(self) -> set[str]:
        return {n for n in _CONTAINER_BUILTINS if self._lookup(n) is None}

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
