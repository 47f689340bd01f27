"""Whether a release that holds a `replace`'s new code may still run the old one (att23f F2).

A release whose scope has the statement the change puts in (`self.timeout = int(...)`) is no
evidence that the change takes effect there: upstream may have taken it only under a condition the
change's result does not have (`if USE_ENV_TIMEOUT: ...`), or store the replaced target again
elsewhere (a class attribute `timeout = 30`, a helper `self.timeout = 30` called after it, a
function of the module rebinding a `global TIMEOUT`). As for a deletion (radpatch.releases.bindings),
the answer is then "cannot tell", so the release is not obsolete: the scope must hold each new
statement at its own top level as often as the change's result does, and the module must store
each name (or attribute) the replaced statements bound no more often than the result does, nor
newly store through `setattr`/`vars`/`__dict__`, nor newly call code of the module (a function, a
method of the class, followed) that stores one (`_reset(self)` after the new code). Such a release
does not carry the change (prove.refusal.NOT_IN_EFFECT: the words every reader says of it).
"""

from __future__ import annotations

import ast
from collections import Counter

from radpatch.releases import bindings


def undone(before: bytes, after: bytes, release: bytes) -> bool:
    """The change replaces statements (a scope loses some and gains others), and the release holds
    a new one only under a condition, or may store a replaced target again; False when the three do
    not parse or the change replaces nothing (the caller's checks decide)."""
    try:
        b, a, r = ast.parse(before), ast.parse(after), ast.parse(release)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    sb, sa, sr = bindings._scopes(b), bindings._scopes(a), bindings._scopes(r)
    names: set[str] = set()
    calling: list[str] = []  # the scopes of the release whose new calls may store a replaced name again
    replaced = False
    for scope in sb.keys() & sa.keys():
        old, new = bindings._body(sb[scope]), bindings._body(sa[scope])
        gone, came = bindings._removed(old, new), bindings._removed(new, old)
        if not gone or not came:
            continue
        replaced = True
        theirs = Counter(ast.dump(s) for s in bindings._body(sr[scope])) if scope in sr else None
        if theirs is not None and any(theirs[d] < n for d, n in Counter(ast.dump(s) for s in came).items()):
            return True  # a new statement the release has only inside a block (a condition, a loop)
        names |= {name for s in gone for name, _ in bindings._targets(s)}
        if scope in sr:
            calling.append(scope)
    if not replaced:
        return False
    if bindings._opaque(a, r):
        return True
    if any(names & _stored_by_new_calls(scope, sa, sr, r) for scope in calling):
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


def _stored_by_new_calls(
    scope: str, after: dict[str, ast.AST], release: dict[str, ast.AST], tree: ast.Module
) -> set[str]:
    """The names and attributes that code of the module the release's scope newly calls (a call the
    change's result does not make there: `_reset(self)`, `self._defaults()`) stores, followed through
    the module's functions and the class's methods it calls in turn."""
    theirs, ours = release[scope], after.get(scope)
    had = Counter(ast.dump(c) for c in bindings._own_calls(ours)) if ours is not None else Counter()
    parent = release.get(scope.rpartition(".")[0]) if "." in scope else None
    defs: dict[str, ast.AST] = {s.name: s for s in tree.body if isinstance(s, bindings._DEFS)}
    if isinstance(parent, ast.ClassDef):
        defs.update({s.name: s for s in parent.body if isinstance(s, bindings._DEFS)})
    todo: list[ast.Call] = []
    for call in bindings._own_calls(theirs):
        d = ast.dump(call)
        if had[d] > 0:
            had[d] -= 1
        else:
            todo.append(call)
    out: set[str] = set()
    seen: set[int] = set()
    while todo:
        f = todo.pop().func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        fn = defs.get(name) if name is not None else None
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        out |= {n for node in ast.walk(fn) for n, _ in bindings._targets(node)}
        todo.extend(bindings._own_calls(fn))
    return out
