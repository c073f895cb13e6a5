"""L1's rules on what a candidate evaluates at import and keeps across calls: module-level
values (constants and read-only tables only, each use of a table read-only), class-level
values, and decorators and default arguments evaluated at import.
"""

from __future__ import annotations

import ast
from typing import TypeGuard

from runtime.guard_context import _Context, _is_container, _region
from runtime.guard_tables import (_CACHE_DECORATORS, _IMPORT_DECORATORS, _STATIC_BUILTINS,
                                  _STATIC_TORCH_CALLS, _TABLE_FUNCS, _TABLE_METHODS)


class _State(_Context):
    """Module and class state, and what runs at import."""

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

    def _main_guard(self, stmt: ast.stmt) -> TypeGuard[ast.If]:
        """`if __name__ == "__main__":` at module level, with `__name__` never rebound."""
        if not (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare)
                and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], ast.Eq)):
            return False
        sides = [stmt.test.left, stmt.test.comparators[0]]
        return ("__name__" not in self.module.bound
                and any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
                and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides))

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
