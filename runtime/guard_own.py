"""L1's view of the candidate's own objects: its classes, the instances it builds in a call,
its functions and its Triton kernels.

The names these define are theirs to use (runtime.guard_attrs asks _own before the
allow-list), except a plain method read through the class, whose `self` could then be any
object; a kernel may only be launched or handed to triton.
"""

from __future__ import annotations

import ast

from runtime.guard_context import _FUNCS, _Context, _Scope


class _Own(_Context):
    """The candidate's own classes, instances, functions and kernels."""

    def __init__(self, tree: ast.Module, allow: frozenset[str]) -> None:
        super().__init__(tree, allow)
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
