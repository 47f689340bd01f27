"""The module's namespace and the module object, wherever code reaches them (att61 F7), for rewrite.escapes:
a name of the module is read or changed through them (`globals()["CFG"]`, `h.__globals__["CFG"]`,
`sys._getframe().f_globals["CFG"]`, `sys.modules[__name__].__dict__["CFG"]`, `globals().get("CFG")`): rewrite.escapes
judges that read as the value itself (`keyed`). Any other use of them hands every name of the module on
(`globals().values()`, `dict.update(globals(), ...)`, `d = sys.modules`, `m.__getattribute__(...)`, `return
globals()`): `escape` says where, and the edit is refused there.

Namespaces: `globals()`, `locals()`, `vars()` with no argument or of the module object, `X.f_globals`, `X.f_locals`,
`X.__globals__`, the module object's `__dict__`, a name bound to one. The module object: `sys.modules[k]`,
`sys.modules.get(k)` (k may be the module's own name: module_routes.other_module), `__import__(...)`,
`importlib.import_module(...)`, a name bound to one. Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence, Set

from radpatch.rewrite.known_callees import pure_builtin, short_text
from radpatch.rewrite.module_routes import callee_name, other_module, sys_modules

_FRAMES = frozenset({"f_globals", "f_locals", "__globals__"})
_KEYED = frozenset({"get", "__getitem__", "pop", "setdefault"})  # give back the value at a key
_KEEPS = frozenset({"keys", "__contains__", "__len__", "__iter__", "__setitem__", "__delitem__"})
_REFLECT = frozenset({"__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__dict__", "__class__"})
_READ_BY = frozenset({"getattr", "hasattr", "vars"})  # given the module object: judged as its namespace or a read


class Namespaces:
    """The namespaces and module objects in one scope's code (`body`), for the name `name`."""

    def __init__(
        self,
        body: Sequence[ast.AST],
        parents: Mapping[int, ast.AST],
        name: str,
        keys: Set[str],
        own: Callable[[str], bool],
    ) -> None:
        self.parents, self.name, self.keys, self.own = parents, name, keys, own
        self.dicts: set[str] = set()  # names bound to a namespace
        self.modules: set[str] = set()  # names bound to the module object, maybe
        self.own_modules: set[str] = set()  # of those, the ones named by the module's own name (`__name__`)
        assigns = [n for n in ast.walk(ast.Module(list(body), [])) if isinstance(n, ast.Assign)]  # type: ignore[arg-type]
        self.own_keys: set[str] = set()  # names bound to a value computed from `__name__`, `__spec__`
        loops = [n for n in ast.walk(ast.Module(list(body), [])) if isinstance(n, (ast.For, ast.comprehension))]  # type: ignore[arg-type]
        for loop in loops:  # `for k in list(sys.modules)`: any module's name, this one's too (att62 F3)
            if any(sys_modules(n) for n in ast.walk(loop.iter)):
                self.own_keys |= {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for _ in range(4):
            self.own_keys |= {t for a in assigns if self._by_own_name(a.value) for t in _names(a.targets)}
        for node in assigns:
            if len(_names(node.targets)) == len(node.targets):
                if self.namespace(node.value):
                    self.dicts |= set(_names(node.targets))
                elif self.module(node.value):
                    self.modules |= set(_names(node.targets))
                    self.own_modules |= set(_names(node.targets)) if self.module(node.value, False) else set()

    def _by_own_name(self, key: ast.AST | None) -> bool:
        """`key` is computed from the module's own name (`__name__`, `__spec__.name`, a name bound to one)."""
        said = (n.id for n in ast.walk(key) if isinstance(n, ast.Name)) if key is not None else ()
        return any(n in ("__name__", "__spec__", "__package__") or n in self.own_keys for n in said)

    def namespace(self, node: ast.AST) -> bool:
        """`node` may be the module's namespace (a dict)."""
        if isinstance(node, ast.Name):
            return node.id in self.dicts
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id in ("globals", "locals") and not node.args:
                return True
            if node.func.id == "dict" and len(node.args) == 1:
                return self.namespace(node.args[0])  # a copy holds the same values (att62 F7)
            return node.func.id == "vars" and (not node.args or (len(node.args) == 1 and self.module(node.args[0])))
        if isinstance(node, ast.Attribute):
            if node.attr == "__globals__":  # a function's: of this module where it is one of its defs
                return isinstance(node.value, ast.Name) and self.own(node.value.id)
            return node.attr in _FRAMES or (node.attr == "__dict__" and self.module(node.value))
        return False

    def module(self, node: ast.AST, named: bool = True) -> bool:
        """`node` may be the module object itself; not `named`: not where a constant names it (handed on:
        `importlib.import_module("deep_gemm")` is taken as another module, docs/safety.md)."""
        if isinstance(node, (ast.BoolOp, ast.IfExp)):
            branches = node.values if isinstance(node, ast.BoolOp) else [node.body, node.orelse]
            return any(self.module(v, named) for v in branches)
        if isinstance(node, ast.Name):
            return node.id in (self.modules if named else self.own_modules)
        if isinstance(node, ast.Call) and callee_name(node) == "getmodule":
            return True  # `inspect.getmodule(_f)`: the module of the object, maybe this one (att62 F2)
        if other_module(node, self.keys) or (not named and not self._by_own_name(_key(node))):
            return False
        if isinstance(node, ast.Subscript):
            return sys_modules(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEYED:
            return sys_modules(node.func.value)
        return isinstance(node, ast.Call) and callee_name(node) in ("__import__", "import_module")

    def keyed(self, node: ast.AST) -> bool:
        """`node` reads a key of a namespace that may be the name: `ns[k]`, `ns.get(k)`, `ns.pop(k)`."""
        if isinstance(node, ast.Subscript) and self.namespace(node.value):
            return _may_be(node.slice, self.name)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEYED:
            return self.namespace(node.func.value) and (not node.args or _may_be(node.args[0], self.name))
        return False

    def escape(self, node: ast.AST) -> tuple[ast.AST, str] | None:
        """Where `node`, a namespace, the module object or `sys.modules`, hands the module's names on: the place
        and what happens there; None for a use rewrite.escapes follows (a key read, an attribute read) or one that
        reads no name (`"k" in globals()`, `sys.modules[__name__].other`)."""
        parent = self.parents.get(id(node))
        if parent is None or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return None
        if self.namespace(node):
            what, allowed = f"the module's namespace (`{short_text(node)}`)", _KEYED | _KEEPS
        elif self.module(node, named=False):
            what, allowed = f"the module object (`{short_text(node)}`)", None
        elif sys_modules(node):
            what, allowed = "`sys.modules`", _KEYED | _KEEPS
        else:
            return None
        while isinstance(parent, (ast.BoolOp, ast.IfExp, ast.NamedExpr)) and getattr(parent, "test", None) is not node:
            node, parent = parent, self.parents.get(id(parent))  # `m or other`: the result may be it
        if (
            parent is None
            or isinstance(parent, (ast.Subscript, ast.Compare))
            or (isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node and allowed is not None)
        ):
            return None  # a key read or stored (judged as the value), compared, its keys iterated
        if isinstance(parent, ast.Attribute):
            above = self.parents.get(id(parent))
            called = isinstance(above, ast.Call) and above.func is parent
            bad = parent.attr not in allowed or not called if allowed else parent.attr in _REFLECT - {"__dict__"}
            return (parent, f"{what} is used through `.{parent.attr}`") if bad else None
        if isinstance(parent, ast.Assign) and parent.value is node:
            names = {t.id for t in parent.targets if isinstance(t, ast.Name)}
            if len(names) == len(parent.targets) and names <= self.dicts | self.modules:
                return None  # a name bound to it: judged where it is used
        if isinstance(parent, ast.Call) and parent.func is not node:
            if callee_name(parent) in _READ_BY and parent.args and parent.args[0] is node:
                return None  # `getattr(m, k)`: rewrite.escapes reads it as the value; `vars(m)`: a namespace
            if isinstance(parent.func, ast.Name) and pure_builtin(parent) and parent.func.id != "map":
                return None  # `len(globals())`
        return parent, f"{what} is handed on"


def _names(targets: list[ast.expr]) -> list[str]:
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _key(node: ast.AST) -> ast.AST | None:
    """The module name `sys.modules[k]`, `sys.modules.get(k)`, `import_module(k)`, `__import__(k)` give."""
    if isinstance(node, ast.Subscript):
        return node.slice
    return node.args[0] if isinstance(node, ast.Call) and node.args else None


def _may_be(key: ast.AST, name: str) -> bool:
    return not isinstance(key, ast.Constant) or key.value == name
