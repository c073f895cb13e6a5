"""The L1 walk: one visit of the candidate's syntax tree with a scope stack.

_Scanner judges imports and imported names (torch and Triton by their tables), builtins,
dunder names, calls, class and function statements, operators and except clauses; its bases
hold the attribute rules (runtime.guard_attrs), the candidate's own objects
(runtime.guard_own), module state (runtime.guard_state) and the scopes (runtime.guard_context).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence

from runtime.guard_attrs import _Attrs
from runtime.guard_context import _inner_parts, _is_container, _outer_parts
from runtime.guard_state import _State
from runtime.guard_tables import (_ALLOWED_METHODS, _ALLOWED_MODULES, _ATTR_BUILTINS,
                                  _BANNED_BUILTINS, _CACHE_DECORATORS, _DUNDER_DEFS,
                                  _DUNDER_NAMES, _EVALUATING, _FOREIGN_MODULES,
                                  _HARMLESS_MODULES, _MUTATORS, _TORCH_ALLOWED, _TORCH_PREFIXES,
                                  _TRITON_ALLOWED, _TRITON_BANNED)


class _Scanner(_Attrs, _State, ast.NodeVisitor):
    """Walks the tree once with a scope stack and records findings."""

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
