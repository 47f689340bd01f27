"""Stores of a module-level name through the module object, made in code that runs at import after the
name's binding (esc53, att57 F2): set_constant's change undone by `setattr(sys.modules[__name__],
"LIMIT", 1)`, `sys.modules[__name__].LIMIT = 1`, `globals()["LIMIT"] = 1`,
`globals().update(LIMIT=1)`, `vars(_me)["LIMIT"] = 1` (also through a name bound to the module or
its namespace, `_me = sys.modules[__name__]`, and an imported name: the module itself, maybe) inside
a function Python runs at import without a call naming it (rewrite.implicit_runs: a class's method
once the class is used, any function once the namespace is handed out) and what it calls
(rewrite.later_runs). A key the text does not tell may be the name; a call deeper than later_runs
follows is not read here. The module's own statements and the functions it calls are
prove.placement's (rebinding), which says the same of them.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from radpatch.rewrite.escapes import Escapes
from radpatch.rewrite.implicit_runs import Implicitly
from radpatch.rewrite.later_runs import Unfollowed, runs_after
from radpatch.rewrite.module_routes import module_names


def later_module_stores(body: list[ast.stmt], name: str, bound: ast.AST) -> list[tuple[ast.AST, str | None]]:
    """The nodes a refusal names (the statement of the module's code that runs the store), each with
    None, where code run after `bound` may bind `name` through the module object, or with what
    happens there, where it hands the module's namespace or the module object on (a def returning
    `globals()`, a list holding the module, `for m in sys.modules.values()`, `m.__class__ = ...`: att62
    F3, F8), so that code radpatch does not read may bind it."""
    uses = Escapes(body, name, "object")
    spaces = module_names(body, imports=False)  # `_g = globals()`
    out: list[tuple[ast.AST, str | None]] = []
    for node, _, shown in runs_after(body, name, bound, True, uses.scope.rebound):
        if isinstance(node, Unfollowed):
            continue  # deeper than the walk follows: not read
        # the module's own code and the functions it calls (prove.placement reads them too): the module object
        # reached by its own name only (`sys.modules[_n]`, `_n = __name__`), not by a constant, which the
        # placement step, knowing the module's dotted name, tells from another module's
        own = not isinstance(shown, Implicitly)
        if _stores(node, name, uses, spaces, (lambda x: uses.ns.module(x, False)) if own else uses.module):
            out.append((shown, None))
            continue
        handed = None if _store_form(node, uses) else uses.ns.escape(node)
        if handed is not None:
            out.append((shown, handed[1]))
    return out


def _stores(node: ast.AST, name: str, uses: Escapes, spaces: set[str], module: Callable[[ast.AST], bool]) -> bool:
    """`node` may bind `name` through the module object to a value that does not read it (a store
    whose value reads the name, `globals().update(X=X or 1)`, keeps what the change gave)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        # `setattr(sys.modules[k], "LIMIT", 1)`: any module's key may be the module's own (att62 F3)
        if node.func.id in ("setattr", "delattr") and len(node.args) >= 2 and module(node.args[0]):
            return _may_be(node.args[1], name) and not _reads(node.args[2:], name)
        return node.func.id == "exec"
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _namespace(node.func.value, spaces, uses, module)
    ):
        if node.func.attr == "update" and not node.args:
            return any(k.arg is None or (k.arg == name and not _reads([k.value], name)) for k in node.keywords)
        return node.func.attr not in ("get", "keys", "values", "items", "copy", "__contains__", "__getitem__")
    stored = not isinstance(getattr(node, "ctx", None), ast.Load)
    if isinstance(node, ast.Attribute) and stored and node.attr == name and module(node.value):
        return not _reads([getattr(uses.parents.get(id(node)), "value", None)], name)
    if (
        isinstance(node, ast.Subscript)
        and stored
        and _namespace(node.value, spaces, uses, module)
        and _may_be(node.slice, name)
    ):
        return not _reads([getattr(uses.parents.get(id(node)), "value", None)], name)
    return False


def _reads(values: Sequence[ast.AST | None], name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for v in values if v is not None for n in ast.walk(v))


def _namespace(node: ast.AST, spaces: set[str], uses: Escapes, module: Callable[[ast.AST], bool]) -> bool:
    """A dict that may be the module's namespace: `globals()`, `vars()`, `vars(<module>)`, `locals()`,
    `<module>.__dict__`, a name bound to one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars", "locals"):
        return True
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return module(node.value)  # `_me.__dict__`, not `self.__dict__`
    if uses.ns.namespace(node):
        return True  # a frame's `f_globals`, one of the module's defs' `__globals__` (att61 F7)
    return isinstance(node, ast.Name) and node.id in spaces


def _may_be(key: ast.AST, name: str) -> bool:
    return not isinstance(key, ast.Constant) or key.value == name


_STORE_METHODS = frozenset({"update", "__setitem__", "__delitem__", "setdefault", "pop", "popitem", "clear"})
_SETTERS = frozenset({"setattr", "delattr", "__setattr__", "__delattr__"})


def _store_form(node: ast.AST, uses: Escapes) -> bool:
    """`node` (through `(_m := ...)`, `a or b`) is what a store writes into: `setattr(node, ...)`,
    `object.__setattr__(node, ...)`, `node.update(...)`, `node.__setattr__(...)`: a store, which `_stores` and
    prove.placement judge by the name it binds and what its value reads, not the namespace handed on."""
    parent = uses.parents.get(id(node))
    while isinstance(parent, (ast.NamedExpr, ast.BoolOp, ast.IfExp)):
        node, parent = parent, uses.parents.get(id(parent))
    if isinstance(parent, ast.Call) and parent.args[:1] == [node]:
        func = parent.func
        return (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) in _SETTERS
    if isinstance(parent, ast.Attribute) and parent.attr in _STORE_METHODS | _SETTERS:
        above = uses.parents.get(id(parent))
        return isinstance(above, ast.Call) and above.func is parent
    return False
