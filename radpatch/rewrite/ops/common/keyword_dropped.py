"""set_keyword on a binding whose own call may drop the keyword (att62 F9): `B = Box(timeout=1)` where the
module's class Box (or a class of the module it derives from) runs code at the call that sets the attribute
the keyword gives: a metaclass of the module defining `__call__` (it returns what it likes), an
`__init__` or `__post_init__` assigning `self.timeout` (`self.timeout = 1`, `setattr(self, "timeout", 1)`)
from a value that does not read what the keyword gave (its parameter `timeout`, a `**kw` parameter,
`self.timeout`). Then the rewrite cannot say the keyword takes effect: refused, naming that line. An
`__init__` storing the parameter (`self.timeout = timeout`) is how the keyword takes effect, and passes.
Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from radpatch.rewrite.module_routes import class_chain

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def dropped(top: Sequence[ast.stmt] | str, callee: str, keyword: str) -> tuple[ast.AST, str] | None:
    """(the node, what it does) where the call of the module's class `callee` (a module-level name) may
    leave attribute `keyword` other than the keyword gave it; None where the module's code (`top`, or its
    text, parsed only where it has such a class) does not."""
    if isinstance(top, str):
        top = ast.parse(top).body if f"class {callee}" in top else []
    classes = {n.name: n for n in top if isinstance(n, ast.ClassDef)}
    if callee not in classes:
        return None
    chain = class_chain(callee, classes).classes
    for k in chain:
        meta = next((w.value for w in k.keywords if w.arg == "metaclass"), None)
        if isinstance(meta, ast.Name) and meta.id in classes:
            for m in class_chain(meta.id, classes).classes:
                call = _method(m, "__call__")
                if call is not None:
                    return call, f"metaclass {m.name}'s `__call__` runs at the call and returns what it makes"
    for k in chain:
        for name in ("__init__", "__post_init__"):
            fn = _method(k, name)
            store = _overwrites(fn, keyword) if fn is not None else None
            if store is not None:
                return store, f"{k.name}.{name} sets `{keyword}` from a value the keyword does not give"
    return None


def dropped_said(drop: tuple[ast.AST, str], at: int, binding: str, keyword: str) -> tuple[str, str]:
    """The refusal's message and hint: `at` is the file's line of the node `dropped` found."""
    return (
        f"line {at}: {drop[1]}, so `{binding}({keyword}=...)` may not keep it; the set_keyword of {keyword}= may "
        "not take effect",
        f"set_keyword proves a keyword the object keeps; change line {at} with a `replace` rewrite instead",
    )


def _method(k: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return next((d for d in k.body if isinstance(d, _DEFS) and d.name == name), None)


def _overwrites(fn: ast.FunctionDef | ast.AsyncFunctionDef, keyword: str) -> ast.AST | None:
    """The first store of `self.<keyword>` in `fn` whose value reads nothing the keyword may have given."""
    a = fn.args
    params = [*a.posonlyargs, *a.args]
    if not params:
        return None
    me = params[0].arg
    given = {keyword} | {p.arg for p in (a.kwarg,) if p is not None}
    for node in ast.walk(fn):
        value: ast.AST | None = None
        if isinstance(node, ast.Assign) and any(_attr_of(t, me, keyword) for t in node.targets):
            value = node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _attr_of(node.target, me, keyword):
            value = node.value
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and len(node.args) == 3:
            target, key = node.args[0], node.args[1]
            if (
                isinstance(target, ast.Name)
                and target.id == me
                and isinstance(key, ast.Constant)
                and key.value == keyword
            ):
                value = node.args[2]
        if value is not None and not _reads(value, me, keyword, given):
            return node
    return None


def _attr_of(node: ast.AST, me: str, keyword: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == keyword and getattr(node.value, "id", "") == me


def _reads(value: ast.AST, me: str, keyword: str, given: set[str]) -> bool:
    for n in ast.walk(value):
        if isinstance(n, ast.Name) and n.id in given:
            return True
        if isinstance(n, ast.Attribute) and _attr_of(n, me, keyword):
            return True
    return False
