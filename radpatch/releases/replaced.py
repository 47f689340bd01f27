"""Whether a release that holds a `replace`'s new code may still run the old one (att23f F2).

A release whose scope has the statement the change puts in (`self.timeout = int(...)`) is no
evidence that the change takes effect there: upstream may have taken it only under a condition the
change's result does not have (`if USE_ENV_TIMEOUT: ...`), or store the replaced target again
elsewhere (a class attribute `timeout = 30`, a helper `self.timeout = 30` called after it, a
function of the module rebinding a `global TIMEOUT`). As for a deletion (radpatch.releases.bindings),
the answer is then "cannot tell", so the release is not obsolete: the scope must hold each new
statement at its own top level as often as the change's result does, and the module must store
each name (or attribute) the replaced statements bound no more often than the result does, nor
newly store through `setattr`/`vars`/`__dict__` or an `object.__setattr__(self, "timeout", 30)`,
nor newly call code of the module (a function, a method of the class, followed) that stores one
(`_reset(self)` after the new code), nor newly hand the object or namespace (`self`, `vars()`) to a
call whose body radpatch does not read (a helper imported from another module, an inherited
method), nor newly decorate the scope (or its class) with a decorator that stores one or that
radpatch cannot read (one from another module of the package is followed as
radpatch.releases.imported_decorators follows it; anything else is "cannot tell"). Such a release does not
carry the change (prove.refusal.NOT_IN_EFFECT: the words every reader says of it).
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter

from radpatch.prove.star_exports import ModuleSource
from radpatch.releases import bindings, handed_on, imported_decorators
from radpatch.releases.compared import Compared

_SETATTRS = frozenset({"__setattr__", "__delattr__", "setattr", "delattr"})
_NAMESPACES = frozenset({"vars", "locals", "globals"})
# builtins that store nothing they are handed (setattr, vars, exec... are not among them)
_HARMLESS = frozenset(dir(builtins)) - _SETATTRS - _NAMESPACES - {"exec", "eval", "__import__", "compile"}


def undone(c: Compared) -> bool:
    """The change replaces statements (a scope loses some and gains others), and the release holds
    a new one only under a condition, or may store a replaced target again; False when the three do
    not parse or the change replaces nothing (the caller's checks decide). `c.me`: the release's
    module (dotted, is a package); `c.sources`: the modules of its package its decorators come from."""
    try:
        b, a, r = ast.parse(c.before), ast.parse(c.after), ast.parse(c.release)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    sb, sa, sr = bindings._scopes(b), bindings._scopes(a), bindings._scopes(r)
    names: set[str] = set()
    bases: set[str] = set()  # what holds a replaced attribute (`self`), or the names themselves
    calling: list[str] = []  # the scopes of the release whose new calls may store a replaced name again
    replaced = False
    for scope in sb.keys() & sa.keys():
        old, new = handed_on._body(sb[scope]), handed_on._body(sa[scope])
        gone, came = bindings._removed(old, new), bindings._removed(new, old)
        if not gone or not came:
            continue
        replaced = True
        theirs = Counter(ast.dump(s) for s in handed_on._body(sr[scope])) if scope in sr else None
        if theirs is not None and any(theirs[d] < n for d, n in Counter(ast.dump(s) for s in came).items()):
            return True  # a new statement the release has only inside a block (a condition, a loop)
        names |= {name for s in gone for name, _ in bindings._targets(s)}
        bases |= {_root(t) for s in gone for t in _target_nodes(s)}
        if scope in sr:
            calling.append(scope)
    if not replaced:
        return False
    if bindings._opaque(a, r):
        return True
    if _setattrs(r, names) > _setattrs(a, names):
        return True  # `object.__setattr__(self, "timeout", 30)`, `setattr(self, name, v)`
    follow = _Follow(r, names, bases, c.me, c.sources)
    if any(follow.new_calls(scope, sa, sr) or follow.new_decorators(scope, sa, sr) for scope in calling):
        return True
    stored_after, stored_release = _stores(a), _stores(r)
    return any(stored_release[n] > stored_after[n] for n in names)


def _stores(tree: ast.Module) -> Counter[str]:
    """How often the module binds each name or attribute, at any depth and with any value."""
    out: Counter[str] = Counter()
    for (name, _), n in bindings._bindings(tree).items():
        out[name] += n
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, (ast.Name, ast.Attribute)):
            t = node.target
            out[t.id if isinstance(t, ast.Name) else t.attr] += 1
    return out


def _target_nodes(stmt: ast.AST) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target]
    return []


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _setattrs(tree: ast.Module, names: set[str]) -> int:
    """The calls that may set an attribute by name (`setattr`, `x.__setattr__`, their `del` forms)
    other than of a constant name none of `names`."""
    out = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        callee = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if callee not in _SETATTRS:
            continue
        key = [a for a in node.args if isinstance(a, ast.Constant)]
        if key and isinstance(key[0].value, str) and key[0].value not in names:
            continue
        out += 1
    return out


class _Follow:
    """The code a release's scope newly runs, followed where radpatch reads it: whether it may store
    a replaced name again."""

    def __init__(
        self,
        tree: ast.Module,
        names: set[str],
        bases: set[str],
        me: tuple[str, bool] | None,
        sources: tuple[ModuleSource, ...],
    ) -> None:
        self.tree, self.names, self.bases, self.me = tree, names, bases, me
        self.read = imported_decorators.reader(sources)
        self.seen: set[int] = set()

    def new_calls(self, scope: str, after: dict[str, ast.AST], release: dict[str, ast.AST]) -> bool:
        """A call the release's scope makes that the result's does not (`_reset(self)`) may store one."""
        ours = after.get(scope)
        had = Counter(ast.dump(c) for c in handed_on._own_calls(ours)) if ours is not None else Counter()
        defs = self._defs(scope, release)
        for call in handed_on._own_calls(release[scope]):
            d = ast.dump(call)
            if had[d] > 0:
                had[d] -= 1
            elif self._call(call, defs, self.bases, set()):
                return True
        return False

    def new_decorators(self, scope: str, after: dict[str, ast.AST], release: dict[str, ast.AST]) -> bool:
        """A decorator on the scope (or its class) the result's does not have may store one: followed
        into the module or its package; one that cannot be read may."""
        parent = scope.rpartition(".")[0] if "." in scope else None
        for name in (scope, parent):
            if name is None or name not in release:
                continue
            had = Counter(ast.dump(d) for d in getattr(after.get(name), "decorator_list", []))
            for deco in getattr(release[name], "decorator_list", []):
                d = ast.dump(deco)
                if had[d] > 0:
                    had[d] -= 1
                    continue
                f = imported_decorators.dotted(deco.func if isinstance(deco, ast.Call) else deco)
                if f is None:
                    return True
                fn = self._defs(scope, release).get(f) if "." not in f else None
                if fn is None and self.me is not None:  # `@cached`, `@utils.cached`: read in the package
                    fn = imported_decorators.definition(self.tree, self.me, f, self.read)
                if fn is None or self._runs(fn, {}):
                    return True
        return False

    def _defs(self, scope: str, release: dict[str, ast.AST]) -> dict[str, ast.AST]:
        defs: dict[str, ast.AST] = {s.name: s for s in self.tree.body if isinstance(s, handed_on._DEFS)}
        parent = release.get(scope.rpartition(".")[0]) if "." in scope else None
        if isinstance(parent, ast.ClassDef):
            defs.update({s.name: s for s in parent.body if isinstance(s, handed_on._DEFS)})
        return defs

    def _call(self, call: ast.Call, defs: dict[str, ast.AST], holders: set[str], params: set[str]) -> bool:
        """The call may store a replaced name: a function of the module that does (followed), or a
        call whose body is not read that is handed what holds one (`helper(self)`, `self.m()` of an
        inherited `m`, `f(vars())`)."""
        f = call.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name in _SETATTRS:
            return False  # counted by _setattrs, by the name it sets
        fn = defs.get(name) if name is not None else None
        if fn is not None:
            return self._runs(fn, defs)
        if isinstance(f, ast.Name) and (f.id in _HARMLESS or f.id in params):
            return False  # a builtin that stores nothing, or the function a decorator wraps
        handed = [*call.args, *(k.value for k in call.keywords)]
        if isinstance(f, ast.Attribute):
            handed.append(f.value)
        return any(
            (isinstance(n, ast.Name) and n.id in holders)
            or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _NAMESPACES)
            for h in handed
            for n in ast.walk(h)
        )

    def _runs(self, fn: ast.AST, defs: dict[str, ast.AST]) -> bool:
        """A definition (its nested ones too) stores a replaced name, or calls what may."""
        if id(fn) in self.seen:
            return False
        self.seen.add(id(fn))
        if any(n in self.names for node in ast.walk(fn) for n, _ in bindings._targets(node)):
            return True
        if any(
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Attribute)
            and node.target.attr in self.names
            for node in ast.walk(fn)
        ):
            return True
        params = {
            a.arg
            for node in ast.walk(fn)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        }
        holders = self.bases | params
        return any(self._call(c, defs, holders, params) for c in ast.walk(fn) if isinstance(c, ast.Call))
