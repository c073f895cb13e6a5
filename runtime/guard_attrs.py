"""L1's attribute rules: names refused wherever they appear (frames, code, dunders), the
allow-list for attributes of anything the candidate did not define, torch compute methods on
objects of unknown type, and attribute writes that patch a module or keep state.
"""

from __future__ import annotations

import ast
import re
import string

from runtime.guard_context import _Scope
from runtime.guard_own import _Own
from runtime.guard_tables import (_BANNED_METHODS, _CALL_ONLY, _CONTAINER_RESULTS,
                                  _DUNDER_ATTRS, _HOST_ATTRS, _INTROSPECTION,
                                  _INTROSPECTION_PREFIXES, _KERNEL_ATTRS)


class _Attrs(_Own):
    """The attribute rules, called by the walk (runtime.guard_scan) on each attribute read,
    write and getattr/setattr with a constant name."""

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
