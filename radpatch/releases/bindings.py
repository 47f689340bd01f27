"""Whether a release still makes a binding that an entry deletes, spelled another way (issue 23).

A scope the change only removes statements from is carried by a release only on positive evidence
(radpatch.releases.carried). A removed binding (`self.timeout = 30`, `x = 30`) that upstream moved
is no removal: the release binds the same name (or attribute) to an equal value elsewhere in the
module (a class attribute `timeout = 30`, a base class of the module, a helper `obj.timeout = 30`,
`self.timeout = TIMEOUT` with a module constant `TIMEOUT = 30`) more often than the change's result
does; a definition named like the attribute (`@property def timeout(self)`) rebinds it too. Where
the value or the code cannot be read from the module alone, the release may still make it, and the
answer is "cannot tell", so not carried: a value read from another module
(`self.timeout = consts.TIMEOUT`, an imported or local name), and, for a removed statement on the
method's object, a call the release's scope newly makes that hands the object to code of another
module (`settings.apply_timeout(self)`, `self.method()` of no class of the module, `super()`), or a
base class the scope's class newly names that the module does not define. Nor can the module's
bindings tell (att23e G2) when the release newly stores through an object's `__dict__` or `vars()`
(`self.__dict__.update(timeout=30)`, `vars(self)["timeout"] = 30`) or hands `setattr`/`vars` on as
a value (`map(setattr, [self], ["timeout"], [30])`), newly defines `__getattr__`,
`__getattribute__` or `__setattr__` in a class, or decorates the scope (or its class) with a
decorator the change's result does not have or that comes from another module (it runs around the
method: `@settings.with_timeout`); one the module imports from another module of its own package
(`from .utils import cached`, or `@utils.cached` with `from . import utils`) is read there
instead (radpatch.releases.imported_decorators): a plain `def`
storing none of the removed names, nor through `setattr`/`vars`/`__dict__`, is no evidence.
"""

from __future__ import annotations

import ast
from collections import Counter

from radpatch.prove.star_exports import ModuleSource
from radpatch.releases import imported_decorators
from radpatch.releases.compared import Compared, scope_name
from radpatch.releases.handed_on import _DEFS, _body, _reaches_out

UNKNOWN = "?"  # a value the module alone does not tell
Binding = tuple[str, str]  # (name or attribute bound, the value's dump or UNKNOWN)


def bound_still(scope: str, c: Compared) -> bool:
    """The release may still make a binding (or run code on the method's object) that the change
    removes from `scope`; False when all three cannot be read (the caller's checks decide). `c.me`
    and `c.sources`: the release's module and the modules of its package its decorators come from."""
    try:
        b, a, r = ast.parse(c.before), ast.parse(c.after), ast.parse(c.release)
        sb, sa, sr = _scopes(b), _scopes(a), _scopes(r)
        if scope not in sb or scope not in sa or scope not in sr:
            return False
        removed = _removed(_body(sb[scope]), _body(sa[scope]))
        wanted = [w for s in removed for w in _bound(s, _Values(b))]
        if wanted:
            have_after, have_release = _bindings(a), _bindings(r)
            for name, value in wanted:
                for v in {value, UNKNOWN}:
                    if have_release[(name, v)] > have_after[(name, v)]:
                        return True
        names = {name for name, _ in wanted}
        if removed and (_opaque(a, r) or _decorated(scope, sa, sr, r, _Imported(c.me, c.sources, names))):
            return True
        return _reaches_out(scope, removed, sb, sa[scope], sr, r)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


_HOOKS = {"__getattr__", "__getattribute__", "__setattr__"}
_DICT_READS = {"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__", "__iter__"}
_STORERS = {"setattr", "vars"}  # builtins that store attributes when handed on as a value
_PLAIN = {"staticmethod", "classmethod", "property"}  # builtins that run no other code around the method


def _opaque(after: ast.Module, release: ast.Module) -> bool:
    """The release newly binds attributes the way bindings do not read: through an object's
    `__dict__` or `vars()`, or through a class's `__getattr__`/`__getattribute__`/`__setattr__`."""
    return _hidden(release) - _hidden(after) != Counter()


def _hidden(tree: ast.Module) -> Counter[str]:
    out: Counter[str] = Counter()
    dict_reads: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            out.update(f"def {s.name}" for s in node.body if isinstance(s, _DEFS) and s.name in _HOOKS)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            dict_reads.add(id(node.value))  # `obj.__dict__[k]` read
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DICT_READS:
            dict_reads.add(id(node.func.value))  # `vars(obj).get(k)`
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if id(node) in dict_reads:
            continue
        if isinstance(node, ast.Name) and node.id in _STORERS and id(node) not in called:
            out[f"ref {node.id}"] += 1  # `map(setattr, [self], ...)`: a store no call shows
            continue
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            out[f"__dict__ {ast.dump(node)}"] += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
            out[f"vars {ast.dump(node)}"] += 1
    return out


class _Imported:
    """What a decorator the release's module imports from another module of its package is, read
    there (radpatch.releases.imported_decorators): a `def` that stores none of the removed names and stores
    nothing the way bindings do not read is no evidence the binding is still made."""

    def __init__(self, me: tuple[str, bool] | None, sources: tuple[ModuleSource, ...], names: set[str]) -> None:
        self.me, self.read, self.names = me, imported_decorators.reader(sources), names

    def harmless(self, tree: ast.Module, name: str) -> bool:
        fn = imported_decorators.definition(tree, self.me, name, self.read) if self.me is not None else None
        if fn is None:
            return False  # not readable here: cannot tell
        module = ast.Module(body=[fn], type_ignores=[])
        stored = {n for n, _ in _bindings(module)} - {fn.name}
        return not (stored & self.names) and _hidden(module) == Counter()


def _decorated(
    scope: str, after: dict[str, ast.AST], release: dict[str, ast.AST], tree: ast.Module, imported: _Imported
) -> bool:
    """The release's scope, or its class, has a decorator the change's result does not have there,
    or one that comes from another module: it may run any code around the method. One the module
    imports from another module of its package, and the result has too, is read there (`imported`)."""
    top = {s.name for s in tree.body if isinstance(s, _DEFS)}
    for name in {scope, scope.rpartition(".")[0]} if "." in scope else {scope}:
        theirs, ours = release.get(name), after.get(name)
        if not isinstance(theirs, _DEFS):
            continue
        had = Counter(ast.dump(d) for d in ours.decorator_list) if isinstance(ours, _DEFS) else Counter()
        for d in theirs.decorator_list:
            root = d.func if isinstance(d, ast.Call) else d
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in _PLAIN and root is d:
                continue
            if had[ast.dump(d)] > 0 and isinstance(root, ast.Name) and root.id in top:
                had[ast.dump(d)] -= 1
                continue
            plain = imported_decorators.dotted(d.func if isinstance(d, ast.Call) else d)  # `@mod.cached(...)` too
            if had[ast.dump(d)] > 0 and plain is not None and imported.harmless(tree, plain):
                had[ast.dump(d)] -= 1
                continue
            return True
    return False


def _scopes(tree: ast.Module) -> dict[str, ast.AST]:
    """Each scope's node, named as radpatch.releases.carried names them."""
    out: dict[str, ast.AST] = {"": tree}

    def walk(body: list[ast.stmt], scope: str) -> None:
        for stmt in body:
            if isinstance(stmt, _DEFS):
                name = scope_name(out, scope, stmt.name)
                out[name] = stmt
                walk(stmt.body, name)

    walk(tree.body, "")
    return out


def _removed(old: list[ast.stmt], new: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of `old` (not definitions) that `new` has fewer of."""
    left = Counter(ast.dump(s) for s in old if not isinstance(s, _DEFS)) - Counter(
        ast.dump(s) for s in new if not isinstance(s, _DEFS)
    )
    out = []
    for s in old:
        d = ast.dump(s)
        if not isinstance(s, _DEFS) and left[d] > 0:
            left[d] -= 1
            out.append(s)
    return out


class _Values:
    """A module's values as bindings compare them: a name read from a module constant (`X = 30` at
    the top, bound once) is that constant; any other name, or an attribute of an imported module,
    is UNKNOWN."""

    def __init__(self, tree: ast.Module) -> None:
        self.imported: set[str] = set()
        seen: Counter[str] = Counter()
        consts: dict[str, str] = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.imported |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
            for name, value in _targets(stmt):
                seen[name] += 1
                if isinstance(value, ast.Constant):
                    consts[name] = ast.dump(value)
        self.consts = {k: v for k, v in consts.items() if seen[k] == 1}

    def of(self, value: ast.expr) -> str:
        if isinstance(value, ast.Name):
            return self.consts.get(value.id, UNKNOWN)
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        if root is not value and isinstance(root, ast.Name) and root.id in self.imported:
            return UNKNOWN
        return ast.dump(value)


def _targets(stmt: ast.AST) -> list[tuple[str, ast.expr]]:
    """The names and attributes a plain assignment binds, with the value."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return []
    out = []
    for t in targets:
        if isinstance(t, ast.Attribute):
            out.append((t.attr, value))
        elif isinstance(t, ast.Name):
            out.append((t.id, value))
    return out


def _bound(stmt: ast.AST, values: _Values) -> list[Binding]:
    return [(name, values.of(value)) for name, value in _targets(stmt)]


def _bindings(tree: ast.Module) -> Counter[Binding]:
    """Every binding of the module, at any depth (class attributes, helpers, constants), and a
    definition of the module or of a class named like an attribute (`@property def timeout`: its
    value is the code's, UNKNOWN)."""
    values = _Values(tree)
    out = Counter(b for node in ast.walk(tree) for b in _bound(node, values))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef)):
            out.update((s.name, UNKNOWN) for s in node.body if isinstance(s, _DEFS))
    return out
