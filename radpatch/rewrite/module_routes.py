"""The module object and its namespace as code reaches them, and calls that run a method of their
argument, for rewrite.escapes, rewrite.implicit_runs and rewrite.module_stores (esc53): the names
that may hold the module or its namespace (an import: the module itself, maybe; `_me =
sys.modules[__name__]`, `_g = globals()`), where the namespace is handed out (`globals()`, `vars()`,
`locals()`, `sys.modules`, `__import__`, `importlib.import_module`), a def looked up by string
(`getattr(sys.modules[__name__], "_r")`, `globals()["_r"]`), and `operator.setitem(V, k, x)`,
`dict.update(V, ...)`, `type(V).m(V, ...)`, `operator.methodcaller("m", ...)(V)` written as the
method's call on V; a call of the module's own class (`Cls(CFG)`, `Cls.m(CFG)`); functions from
elsewhere that only read what they are given
(rewrite.known_callees).

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence, Set
from typing import NamedTuple

from radpatch.rewrite.known_callees import short_text

_NAMESPACES = frozenset({"globals", "vars", "locals"})
_OWN = frozenset({"__name__", "__spec__", "__package__"})  # what names this module
_TYPES = frozenset({"dict", "list", "set", "object", "tuple", "frozenset"})


def module_like(
    node: ast.AST, imports: set[str], spaces: set[str], strict: bool = False, keys: Set[str] = frozenset()
) -> bool:
    """An expression that may be the module object: an imported name (or its attribute; not
    `strict`: where the key is computed, `getattr(torch, k)` is taken as another module's), a
    `sys.modules` lookup, `__import__(...)`, `importlib.import_module(...)`, a name bound to one; not
    one of another module (other_module: the same rule for a computed name; `keys`: module_keys)."""
    root = node
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        if other_module(root, keys):
            return False
        if sys_modules(root):
            return True
        if isinstance(root, ast.Call) and callee_name(root) in ("__import__", "import_module", "getmodule"):
            return True
        root = root.func if isinstance(root, ast.Call) else root.value
    return isinstance(root, ast.Name) and root.id in (spaces if strict else imports)


def other_module(node: ast.AST, keys: Set[str] = frozenset()) -> bool:
    """`importlib.import_module(X)`, `__import__(X)`, `sys.modules[X]`, `sys.modules.get(X)` where X
    cannot be this module's name (may_name_self): another module, as module_like takes
    `getattr(torch, k)` with a computed key (`importlib.import_module(self.module_name)`, vLLM's
    model registry). A constant, `__name__`, `__spec__.name` may be this module."""
    if isinstance(node, ast.Call) and callee_name(node) in ("__import__", "import_module"):
        return bool(node.args) and not may_name_self(node.args[0], keys)
    if isinstance(node, ast.Subscript) and sys_modules(node.value):
        return not may_name_self(node.slice, keys)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and sys_modules(node.func.value):
        return node.func.attr == "get" and bool(node.args) and not may_name_self(node.args[0], keys)
    return False


def may_name_self(key: ast.AST, keys: Set[str] = frozenset()) -> bool:
    """A module name that may be this module's: a constant, `__name__`, `__package__`, `__spec__.name`,
    a name of `keys` (module_keys), an item of the namespace (`globals()["__name__"]`), a key of
    `sys.modules`, a branch of
    `x if c else y` or `x or y` that may be, a string built from one (`f"{__name__}"`,
    `__name__.rpartition(".")[0]`) or from constants only; not one computed from other parts (an
    attribute such as `self.module_name`, a parameter, an f-string or call of them)."""
    if isinstance(key, ast.Constant):
        return True
    if isinstance(key, ast.Name):
        return key.id in _OWN or key.id in keys
    if isinstance(key, ast.Attribute):  # `__spec__.name`; `K.__module__`, a class's or def's (att62 F2)
        return (isinstance(key.value, ast.Name) and key.value.id in _OWN) or key.attr == "__module__"
    if isinstance(key, (ast.IfExp, ast.BoolOp)):
        return any(
            may_name_self(b, keys) for b in ([key.body, key.orelse] if isinstance(key, ast.IfExp) else key.values)
        )
    if isinstance(key, ast.Subscript) and namespace_call(key.value):
        return True
    if any(sys_modules(n) for n in ast.walk(key)):
        return True  # `for k in list(sys.modules)`: any module's name, this one's too (att62 F3)
    parts = _parts(key)
    built = [p for p in parts if not isinstance(p, ast.Constant)]
    return any(may_name_self(p, keys) for p in built) or (bool(parts) and not built)


def _parts(key: ast.AST) -> list[ast.AST]:
    """What a string built from `key` is made of: an f-string's values and text, `a + b`, a call's
    receiver and arguments (`__name__.rsplit(".", 1)`, `str(x)`), a subscript's value (`__name__[:3]`)."""
    if isinstance(key, ast.JoinedStr):
        return [v.value if isinstance(v, ast.FormattedValue) else v for v in key.values]
    if isinstance(key, ast.BinOp):
        return [key.left, key.right]
    if isinstance(key, ast.Call):
        receiver = [key.func.value] if isinstance(key.func, ast.Attribute) else []
        return [*receiver, *key.args, *(k.value for k in key.keywords)]
    return [key.value] if isinstance(key, ast.Subscript) else []


def module_keys(body: Sequence[ast.AST]) -> set[str]:
    """The names the module binds, anywhere (assigned, a loop's target, a parameter's default), to a
    value that may name this module (may_name_self): `_ME = __name__`, `NAME = "pkg.mod"`."""
    bound: list[tuple[str, ast.AST]] = []
    for node in ast.walk(ast.Module(list(body), [])):  # type: ignore[arg-type]
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound += [(n.id, node.value) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            each = node.iter.elts if isinstance(node.iter, (ast.Tuple, ast.List, ast.Set)) else [node.iter]
            bound += [(n.id, v) for n in ast.walk(node.target) if isinstance(n, ast.Name) for v in each]
        elif isinstance(node, ast.arguments):
            given = [*node.posonlyargs, *node.args][-len(node.defaults) :] if node.defaults else []
            bound += [(a.arg, d) for a, d in zip(given, node.defaults)]
            bound += [(a.arg, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None]
    out: set[str] = set()
    while True:
        more = {name for name, value in bound if name not in out and may_name_self(value, out)}
        if not more:
            return out
        out |= more


def method_form(node: ast.AST, shadowed: set[str]) -> ast.Call | None:
    """A call that runs a method of its first argument (or, `methodcaller`'s, of its only one),
    written as that method's call, for rewrite.later_changes to judge: `operator.setitem(V, k, x)`
    as `V.__setitem__(k, x)`, `dict.update(V, ...)` and `type(V).update(V, ...)` as `V.update(...)`,
    `operator.methodcaller("update", ...)(V)` as `V.update(...)`, `object.__setattr__(V, k, x)` as
    `setattr(V, k, x)`; None for any other node (`shadowed`: names the module binds otherwise)."""
    if not isinstance(node, ast.Call) or not node.args or isinstance(node.args[0], ast.Starred):
        return None
    func, receiver, rest = node.func, node.args[0], node.args[1:]
    if isinstance(func, ast.Call) and short_text(func.func) in ("operator.methodcaller", "methodcaller"):
        said = func.args[0] if func.args else None
        if len(node.args) == 1 and not node.keywords and isinstance(said, ast.Constant):
            return as_method(node, receiver, str(said.value), func.args[1:], func.keywords)
        return None
    if short_text(func) in ("operator.setitem", "operator.delitem", "setitem", "delitem"):
        return as_method(node, receiver, f"__{callee_name(node)}__", rest, node.keywords)
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value
    if isinstance(owner, ast.Call) and callee_name(owner) == "type" and len(owner.args) == 1:
        if ast.dump(owner.args[0]) == ast.dump(receiver):
            return as_method(node, receiver, func.attr, rest, node.keywords)
    if isinstance(owner, ast.Name) and owner.id in _TYPES and owner.id not in shadowed:
        return as_method(node, receiver, func.attr, rest, node.keywords)
    return None


def looked_up(callee: ast.AST, modules: set[str]) -> str | None:
    """The name a callee looks up by string in the module's namespace: `getattr(sys.modules[__name__],
    "_reset")`, `globals()["_reset"]`, `_g["_reset"]` (`modules`: names bound to the module or its
    namespace, module_names); None for any other callee."""
    if isinstance(callee, ast.Call) and callee_name(callee) == "getattr" and len(callee.args) == 2:
        space, key = callee.args
        root = space
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        named = any(namespace_use(n) for n in ast.walk(space)) or (isinstance(root, ast.Name) and root.id in modules)
    elif isinstance(callee, ast.Subscript):
        key, space = callee.slice, callee.value
        named = namespace_call(space) or (isinstance(space, ast.Name) and space.id in modules)
    else:
        return None
    return key.value if named and isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def module_names(body: Sequence[ast.AST], imports: bool = True) -> set[str]:
    """The names that may hold the module object or its namespace: every name an import binds (a
    self-import, maybe; not with `imports` False), and one bound to `globals()`, `vars()`,
    `sys.modules[...]`, `__import__(...)`, `importlib.import_module(...)` (`_me = sys.modules[__name__]`;
    not `mod = importlib.import_module(self.module_name)`: other_module)."""
    out: set[str] = set()
    keys = module_keys(body)
    for node in ast.walk(ast.Module(list(body), [])):  # type: ignore[arg-type]
        if isinstance(node, (ast.Import, ast.ImportFrom)) and imports:
            out.update((x.asname or x.name).split(".")[0] for x in node.names)
        elif isinstance(node, ast.Assign) and hands_namespace(node.value, keys):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def hands_namespace(node: ast.AST, keys: Set[str] = frozenset()) -> bool:
    """`node` reads the module's namespace somewhere (namespace_use) other than as the way to another
    module (other_module: `sys.modules[self.name]`, `importlib.import_module(self.name)`)."""
    skip: set[int] = set()
    for n in ast.walk(node):  # parents before children
        if other_module(n, keys):
            skip.add(id(_table(n)))
        elif id(n) not in skip and namespace_use(n):
            return True
    return False


def _table(node: ast.AST) -> ast.AST:
    """`sys.modules` in `sys.modules[X]`, `sys.modules.get(X)`, or `node` itself (an import call)."""
    if isinstance(node, ast.Subscript):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and sys_modules(node.func.value):
        return node.func.value
    return node


def namespace_use(node: ast.AST) -> bool:
    """`node` hands out the module's namespace: `globals()`, `vars()`, `locals()`, `sys.modules`,
    `__import__(...)`, `importlib.import_module(...)`: any function of the module may run from there."""
    if isinstance(node, ast.Call):
        return namespace_call(node) or callee_name(node) in ("__import__", "import_module", "getmodule")
    return sys_modules(node)


def sys_modules(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules" and getattr(node.value, "id", "") == "sys"


def namespace_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _NAMESPACES


def as_method(node: ast.Call, receiver: ast.expr, method: str, args: list[ast.expr], kw: list[ast.keyword]) -> ast.Call:
    """`receiver.method(*args, **kw)` (`setattr`/`delattr(receiver, ...)` for those dunders), placed at `node`."""
    if method in ("__setattr__", "__delattr__"):
        call = ast.Call(ast.Name(method.strip("_"), ast.Load()), [receiver, *args], kw)
    else:
        call = ast.Call(ast.Attribute(receiver, method, ast.Load()), args, kw)
    return ast.copy_location(call, node)


def receiver(form: ast.Call) -> ast.AST:
    return form.func.value if isinstance(form.func, ast.Attribute) else form.args[0]


def callee_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


class Chain(NamedTuple):
    """The module's classes a class is and derives from, through its own classes (class_chain)."""

    classes: list[ast.ClassDef]
    plain: bool  # every class on the way is the module's own and plain (no base from elsewhere)
    repeated: bool  # a class reached twice (a diamond, a cycle)


def class_chain(
    name: str, defined: Mapping[str, ast.ClassDef], plain: Callable[[ast.ClassDef], bool] | None = None
) -> Chain:
    """Class `name` and the module's classes it derives from (one walk of its bases), and whether each is
    the module's own and `plain` (by default: without a metaclass or decorator)."""
    chain: list[ast.ClassDef] = []
    todo, clean, repeated = [name], True, False
    while todo:
        cls = defined.get(todo.pop())
        if cls is None or cls in chain:
            clean, repeated = clean and cls is not None, repeated or cls is not None
            continue
        clean = clean and (plain(cls) if plain else not (cls.keywords or cls.decorator_list))
        chain.append(cls)
        bases = [b.id if isinstance(b, ast.Name) else "" for b in cls.bases]
        todo += [b for b in bases if b != "object"]
    return Chain(chain, clean, repeated)


def own_class(callee: ast.AST, defined: dict[str, ast.ClassDef]) -> bool:
    """`Cls` or `Cls.m` (a method it defines) where Cls and every class it derives from are the
    module's own, without a metaclass or decorator: what the call runs is the module's code."""
    name = callee.value if isinstance(callee, ast.Attribute) else callee
    if not isinstance(name, ast.Name) or name.id not in defined:
        return False
    chain = class_chain(name.id, defined)
    if not chain.plain or chain.repeated:
        return False
    methods = {n.name for c in chain.classes for n in c.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return not isinstance(callee, ast.Attribute) or callee.attr in methods


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def comprehension_local(node: ast.Name, parents: Mapping[int, ast.AST]) -> bool:
    """`node` reads a comprehension's own variable (`X` in `[X for X in range(2)]`), not the name of
    the scope around it: a comprehension holding it binds the name in a target, and `node` is not in
    its first iterable (evaluated in the scope around it)."""
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, _OWN_SCOPES):
        if isinstance(parent, _COMPREHENSIONS):
            binds = {n.id for g in parent.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            if node.id in binds and all(n is not node for n in ast.walk(parent.generators[0].iter)):
                return True
        parent = parents.get(id(parent))
    return False
