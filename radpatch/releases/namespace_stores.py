"""Stores of a module's name, or of a class's attribute, that no binding statement shows
(radpatch.releases.shadowed): a function's `global name` assigning it, `globals()`/`vars()` written
to, `setattr` of the module or the class, `Cls.name = ...` from outside the class body, code run by
`exec`/`eval` from a string literal that stores it (radpatch.releases.exec_code: read as code; other
code run so may store any name). Read with `ast` only."""

from __future__ import annotations

import ast
from collections.abc import Callable

from radpatch.releases import exec_code

_NAMESPACE_WRITES = frozenset({"update", "setdefault", "__setitem__", "pop", "__delitem__", "clear"})


def _module_stores(tree: ast.Module, name: str) -> int | None:
    """The line of a store of the module's `name` that no binding statement shows: a function's
    `global name` assigning it, `globals()`/`vars()` written to, `setattr` of a module object, or
    `sys.modules[...]` written through."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            declared = {n for s in ast.walk(node) if isinstance(s, ast.Global) for n in s.names}
            if name in declared:
                for s in ast.walk(node):
                    if isinstance(s, ast.Name) and s.id == name and isinstance(s.ctx, ast.Store | ast.Del):
                        return s.lineno
        if _namespace_write(node):
            return getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ast.Store | ast.Del):
            if _names_module(node.value):
                return node.lineno
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
            if _names_module(node.args[0]) and _may_name(node.args[1:2], name):
                return node.lineno
        if isinstance(node, ast.Call) and name in literal_stores(node):  # `exec("size = len")`: read as code
            return node.lineno
    return None


def literal_stores(node: ast.Call) -> frozenset[str]:
    """The names an `exec`/`eval` of literal code may store (exec_code; ANY among them: any name); none
    for any other call (an `exec` of other code is `dynamic`'s)."""
    text = exec_code.code_of(node) if exec_code.runs_code(node) else None
    return exec_code.stored(text) if text is not None else frozenset()


_REBINDERS = frozenset({"setattr", "delattr"})
_RUNS_TEXT = frozenset({"exec", "eval"})


def dynamic(tree: ast.Module, at: Callable[[int], str] = lambda n: f"line {n}") -> tuple[int, str] | None:
    """What in the module may store any name where no statement shows it, (line, in words): `exec` or
    `eval` of text, `setattr`/`delattr` bound to another name or passed on (`sa = setattr`), a
    `__dict__` (written through: `self.__dict__["size"] = ...`), `sys.modules` written to (a module
    put in another's place). None when there is none: the other rules read every store. `at` words
    where a line is (`line 7`; `rptoy/core.py:7` where the file is named)."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    read = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and _read_as_code(n)}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and node.id in _RUNS_TEXT and id(node) not in read:
            return line, f"`{node.id}` ({at(line)}) may bind any name"
        if isinstance(node, ast.Name) and node.id in _REBINDERS and id(node) not in called:
            return line, f"`{node.id}` is passed on or bound to another name ({at(line)}), and may rebind it"
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return line, f"a `__dict__` ({at(line)}) may be written through"
        written = node.value if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del) else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _NAMESPACE_WRITES:
            written = node.func.value
        if written is not None and _sys_modules(written):
            return line, f"`sys.modules` is written ({at(line)}): a module may stand in for another"
    return None


def _read_as_code(call: ast.Call) -> bool:
    """An `exec`/`eval` of literal code that stores only names it spells (the rules read those)."""
    text = exec_code.code_of(call) if exec_code.runs_code(call) else None
    return text is not None and exec_code.ANY not in exec_code.stored(text)


def _sys_modules(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _attribute_stores(tree: ast.Module, cls: str, name: str) -> int | None:
    """The line of a store of `cls.name` from outside the class body (`Cls.name = ...`, `setattr(Cls,
    "name", ...)`, `del Cls.name`), anywhere in the module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ast.Store | ast.Del):
            if isinstance(node.value, ast.Name) and node.value.id == cls:
                return node.lineno
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Name) and first.id == cls and _may_name(node.args[1:2], name):
                return node.lineno
        if isinstance(node, ast.Call) and name in literal_stores(node):
            return node.lineno
    return None


def _may_name(args: list[ast.expr], name: str) -> bool:
    """The name argument of a `setattr` is `name`, or not a constant (it may be)."""
    return not args or not isinstance(args[0], ast.Constant) or args[0].value == name


def _namespace_write(node: ast.AST) -> bool:
    """`globals()[k] = v`, `globals().update(...)`, `vars()[k] = v` (no argument: the module's own)."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        return _own_namespace(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _NAMESPACE_WRITES:
        return _own_namespace(node.func.value)
    return False


def _own_namespace(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("globals", "vars", "locals")
        and not node.args
    )


def _names_module(node: ast.expr) -> bool:
    """`sys.modules[...]` (or `sys.modules.get(...)`): a module object, possibly this one."""
    root = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else node
    root = root.value if isinstance(root, ast.Subscript) else root
    return isinstance(root, ast.Attribute) and root.attr == "modules" and isinstance(root.value, ast.Name)
