"""Which names an expression handed to a call may evaluate to, for rewrite.passed_values and
rewrite.import_callees (esc55): the callee gets the value a name holds only where the argument can
be that value itself, or a container holding it.

`yields(node)` gives each name so found: `X` where the result may be X itself or hold it as an
element (`X`, `(d := X)`, `X or Y`, `X if c else Y`, `[X]`, `{"k": X}`, a lambda returning it, a call
of a function not known to copy, `g(X)`, whose result may be its argument); `X[]` where it may be
only an item of X (`X[k]`, `[*X]`, `{**X}`, `f(*X)`, `f(**X)`, iteration over X in a comprehension,
a copy `dict(X)`, `list(X)`, `set(X)`, `tuple(X)`, `frozenset(X)`, `sorted(X)`, `copy.copy(X)`): that
is the value only where X is a container holding it (`T` after `T = (CFG,)`, tracked as `T[]`). Not
at all: `len(X)`, an attribute or method of X (`X.items()`), a key (`X[k]`'s k), a comprehension's
test. `meets(found, names)` says whether such names reach the tracked ones.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

_SHOWN = (ast.Tuple, ast.List, ast.Set)
_COPIES = frozenset({"dict", "list", "set", "tuple", "frozenset", "sorted"})  # their items, not X
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def yields(node: ast.AST) -> frozenset[str]:
    """The names `node` may evaluate to (`X`) or to an item of (`X[]`)."""
    out: set[str] = set()
    _walk(node, False, out)
    return frozenset(out)


def yields_all(nodes: Iterable[ast.AST]) -> frozenset[str]:
    out: set[str] = set()
    for node in nodes:
        _walk(node, False, out)
    return frozenset(out)


def meets(found: frozenset[str], names: frozenset[str]) -> bool:
    """Some of `found` may be the value `names` (rewrite.passed_values: `T[]` a container holding it)
    reach: `X` holding it or a container of it, `X[]` where X is a container of it."""
    return any(n in names or (not n.endswith("[]") and n + "[]" in names) for n in found)


def _walk(node: ast.AST, item: bool, out: set[str]) -> None:  # noqa: C901, PLR0912
    """`item`: an item of the result (not the result itself) is what is handed on."""
    if isinstance(node, ast.Name):
        out.add(node.id + "[]" if item else node.id)
    elif isinstance(node, ast.NamedExpr):
        _walk(node.value, item, out)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            _walk(v, item, out)
    elif isinstance(node, ast.IfExp):
        _walk(node.body, item, out)
        _walk(node.orelse, item, out)
    elif isinstance(node, _SHOWN):
        for e in node.elts:  # an item of a display is an element; the display holds each
            _walk(e, False, out)
    elif isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            _walk(v, k is None, out)  # `{**X}`: X's items copied
            if k is not None:
                _walk(k, False, out)  # a key may be the value (a function)
    elif isinstance(node, ast.Starred):
        _walk(node.value, True, out)
    elif isinstance(node, ast.keyword):
        _walk(node.value, item or node.arg is None, out)  # `f(**X)`: X's items
    elif isinstance(node, ast.Subscript):
        _walk(node.value, True, out)  # `X[k]`: an item of X; the key is not handed on
    elif isinstance(node, ast.Attribute):
        return  # an attribute or method of the object, not the object (`X.items()`, `X.a`)
    elif isinstance(node, _COMPS):
        _comprehension(node, out)
    elif isinstance(node, ast.Lambda):
        _walk(node.body, False, out)  # the callee may call it and get the value
    elif isinstance(node, ast.Call):
        _call(node, item, out)
    elif isinstance(node, ast.Constant | ast.JoinedStr):
        return  # a formatted string is a new str
    else:  # an operator (`X + Y` may return X for some types), await, ...: anything in it
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt):
                _walk(child, item, out)


def _call(node: ast.Call, item: bool, out: set[str]) -> None:
    func = node.func
    if isinstance(func, ast.Name) and func.id == "len":
        return
    if _copies(func):
        for a in node.args:  # their items (shared with X: copy.copy of a dict of dicts), not X
            _walk(a.value if isinstance(a, ast.Starred) else a, True, out)
        for k in node.keywords:
            _walk(k, False, out)  # `sorted(X, key=f)`: f may be the value
        return
    if isinstance(func, ast.Attribute):
        _walk(func.value, True, out)  # a method's result may be an item of its object (`d.get("c")`)
    elif not isinstance(func, ast.Name):
        _walk(func, False, out)  # `(lambda: X)()`, `F[0](...)`: what it returns
    for a in node.args:  # a function the text cannot tell may return an argument (`g(X)`)
        _walk(a, item, out)
    for k in node.keywords:
        _walk(k, item, out)


def _copies(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in _COPIES
    return isinstance(func, ast.Attribute) and func.attr == "copy" and getattr(func.value, "id", "") == "copy"


def _comprehension(node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, out: set[str]) -> None:
    """Its elements: what `elt` may be, the comprehension's own variables standing for items of
    their iterables (`[t for t in T]`: T's items; `[t for t in (X, Y)]`: X or Y)."""
    own = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    found: set[str] = set()
    for part in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
        _walk(part, False, found)
    out.update(n for n in found if n.removesuffix("[]") not in own)
    if own & {n.removesuffix("[]") for n in found}:  # an element is (part of) what the iterables yield
        for g in node.generators:
            _walk(g.iter, True, out)
