"""Whether a release that holds a `replace`'s new code may still run the old one (att23f F2).

A release whose scope has the statement the change puts in (`self.timeout = int(...)`) is no
evidence that the change takes effect there: upstream may have taken it only under a condition the
change's result does not have (`if USE_ENV_TIMEOUT: ...`), or store the replaced target again
elsewhere (a class attribute `timeout = 30`, a helper `self.timeout = 30` called after it, a
function of the module rebinding a `global TIMEOUT`). As for a deletion (radpatch.releases.bindings),
the answer is then "cannot tell", so the release is not obsolete: the scope must hold each new
statement at its own top level as often as the change's result does, and the module must store
each name (or attribute) the replaced statements bound no more often than the result does, nor
newly store through `setattr`/`vars`/`__dict__`.
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
    if not replaced:
        return False
    if bindings._opaque(a, r):
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
