"""Names a scope's code binds other than by a statement naming them (att62 F6), for rewrite.import_callees:
a callee the walk would read as the module's def may run other code once one of these rebinds it.

- A store through the module's namespace or module object: `globals()["_f"] = ...`, `vars()["_f"] = ...`,
  `globals().update(_f=...)`, `setattr(sys.modules[__name__], "_f", ...)`, `sys.modules[__name__]._f = ...`,
  also through a name bound to one (`_g = globals()`).
- A def's code replaced: `_f.__code__ = ...` (`_f`).
- An attribute of a name stored: `_C.m = ...`, `setattr(_C, "m", ...)` (`_C.m`: the class's method).
- A builtin replaced: `builtins.len = ...`, `__builtins__["len"] = ...` (`builtins.len`).

A key the text does not tell may be any name: `ANY` (`builtins.*` for builtins). Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from radpatch.rewrite.module_routes import module_keys, module_like, module_names, namespace_call

ANY = "*"
_BUILTINS = frozenset({"builtins", "__builtins__"})
_NAMESPACE_STORES = frozenset({"update", "__setitem__", "setdefault", "pop", "popitem", "clear", "__delitem__"})


def rebound(body: Sequence[ast.AST]) -> frozenset[str]:
    """What the scope's code (at any depth) may rebind that way: names, `Owner.attr`, `builtins.name`, ANY."""
    spaces = module_names(body, imports=False)  # `_g = globals()`, `_me = sys.modules[__name__]`
    keys = module_keys(body)
    nodes = list(ast.walk(ast.Module(list(body), [])))  # type: ignore[arg-type]
    known = _Builtins(nodes)
    out: set[str] = set()
    for node in nodes:
        stored = not isinstance(getattr(node, "ctx", ast.Load()), ast.Load)
        if isinstance(node, ast.Subscript) and stored:
            owner = _owner(node.value, spaces, keys, known)
            if owner is not None:
                out.add(owner + _key(node.slice))
        elif isinstance(node, ast.Attribute) and stored:
            out.update(_attribute(node.value, node.attr, spaces, keys, known))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            if len(node.args) >= 2:
                out.update(_attribute(node.args[0], _key(node.args[1]), spaces, keys, known))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = _owner(node.func.value, spaces, keys, known) if node.func.attr in _NAMESPACE_STORES else None
            if owner is not None:
                given = [k.arg for k in node.keywords]
                literal = node.func.attr == "update" and not node.args and None not in given
                out.update(owner + str(k) for k in given) if literal else out.add(owner + ANY)
    return frozenset(out)


class _Builtins:
    """The scope's names for the builtins module (`builtins`, `__builtins__`, `import builtins as b`, `b =
    builtins`) and for its namespace (`_d = vars(builtins)`, `_d = builtins.__dict__`), to a fixed point."""

    def __init__(self, nodes: list[ast.AST]) -> None:
        self.modules, self.dicts = set(_BUILTINS), set[str]()
        for n in nodes:
            if isinstance(n, ast.Import):
                self.modules.update(a.asname for a in n.names if a.name == "builtins" and a.asname)
        pairs = [
            (t.id, n.value) for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
        ]
        for _ in range(3):
            self.modules.update(t for t, v in pairs if isinstance(v, ast.Name) and v.id in self.modules)
            self.dicts.update(t for t, v in pairs if self.namespace(v))

    def module(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.modules

    def namespace(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.dicts or node.id == "__builtins__"  # a dict where the module is not __main__
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return self.module(node.value)
        return (
            isinstance(node, ast.Call) and getattr(node.func, "id", "") == "vars" and any(map(self.module, node.args))
        )


def _owner(node: ast.AST, spaces: set[str], keys: set[str], known: _Builtins) -> str | None:
    """ "" where `node` may be the module's namespace, "builtins." where it is the builtins', else None."""
    if known.namespace(node):
        return "builtins."
    if namespace_call(node) or (isinstance(node, ast.Name) and node.id in spaces):
        return ""
    if isinstance(node, ast.Attribute) and node.attr in ("f_globals", "__globals__"):
        return ""  # a frame's or a def's namespace, maybe this one's
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return "" if module_like(node.value, set(), spaces, True, keys) else None  # not `self.__dict__`
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
        return "" if module_like(node.args[0], set(), spaces, True, keys) else None
    return None


def _attribute(value: ast.AST, attr: str, spaces: set[str], keys: set[str], known: _Builtins) -> list[str]:
    """What storing `attr` on `value` may rebind."""
    if known.module(value):
        return [f"builtins.{attr}"]
    if module_like(value, set(), spaces, True, keys):
        return [attr]  # the module object, maybe
    if isinstance(value, ast.Name):
        return [value.id] if attr in ("__code__", "__call__") else [f"{value.id}.{attr}"]
    return []


def _key(node: ast.AST) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ANY
