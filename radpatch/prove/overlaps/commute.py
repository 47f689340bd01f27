"""Two insertions at one gap of the file that commute although the two orders write different
bytes (att23d F7): each only adds module-level bindings (`NAME = value`, imports) that bind
names the other's neither binds nor reads, as two `set_constant`s of new names do. Asked only for
two that radpatch places after the imports itself (no anchor an author chose: prove.overlaps.pairs,
prove.overlaps.applied); an insertion anchored on the last import keeps the byte rule. Either order
defines the same names to the same values, so a quilt series would apply them in either order;
the byte-level "the orders write different files" rule (prove.overlaps.gaps) is stricter than "the
order matters". Decided on the file's text: `independent(before, one, two)`, where `one` and `two`
are `before` with each insertion alone applied."""

from __future__ import annotations

import ast

from radpatch.errors import RadpatchError
from radpatch.registry.model import Operation


def forward(op: Operation, text: str) -> str | None:
    """`op` on `text`: the text written, or None when it fails."""
    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.source import Source

    try:
        with code_errors():
            return op.forward(Source.parse(text)).text
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
        return None


def independent(before: str, one: str, two: str) -> bool:
    """`one` and `two` each add to `before` only module-level bindings, and no name one binds is
    bound or read by the other's: the two additions commute."""
    first, second = _added(before, one), _added(before, two)
    if not first or not second:
        return False
    binds = [_binds(s) for s in first], [_binds(s) for s in second]
    if any(b is None for b in binds[0] + binds[1]):
        return False
    ours = {n for b in binds[0] for n in b or ()}
    theirs = {n for b in binds[1] for n in b or ()}
    if ours & theirs:
        return False
    return not (_reads(first) & theirs) and not (_reads(second) & ours)


def _added(before: str, after: str) -> list[ast.stmt] | None:
    """The module-level statements `after` adds to `before` when that is all it changes (the
    statements of `before` in order, as syntax trees, are among those of `after`); else None."""
    try:
        old, new = ast.parse(before).body, ast.parse(after).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    keep = [ast.dump(s) for s in old]
    out: list[ast.stmt] = []
    i = 0
    for s in new:
        if i < len(keep) and ast.dump(s) == keep[i]:
            i += 1
        else:
            out.append(s)
    return out if i == len(keep) else None


def _binds(s: ast.stmt) -> set[str] | None:
    """The names a plain module-level binding binds (`NAME = value`, `NAME: T = value`, an
    import); None for any other statement (it may do anything in its place), and for a binding
    whose value may do more than compute it (att23e G1: two values that each call
    `os.environ.setdefault` differ by order; a walrus binds a name of its own): `_pure`."""
    if isinstance(s, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in s.names}
    if isinstance(s, ast.ImportFrom):
        return None if any(a.name == "*" for a in s.names) else {a.asname or a.name for a in s.names}
    targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else None
    if targets is None or not all(isinstance(t, ast.Name) for t in targets):
        return None
    value = s.value if isinstance(s, (ast.Assign, ast.AnnAssign)) else None
    if value is None or not _pure(value):
        return None
    if isinstance(s, ast.AnnAssign) and not all(isinstance(n, _ANNOTATION) for n in ast.walk(s.annotation)):
        return None
    return {t.id for t in targets if isinstance(t, ast.Name)}


# what an annotation may hold to be read with no effect: names, dotted names, subscripts, `X | Y`
_ANNOTATION = (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.Constant, ast.BinOp, ast.BitOr, ast.Load)

# calls whose only effect is their value: conversions, and reading the environment
_READERS = {"int", "float", "str", "bool", "os.getenv", "os.environ.get"}


def _dotted(e: ast.expr) -> str | None:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        head = _dotted(e.value)
        return f"{head}.{e.attr}" if head else None
    return None


def _pure(e: ast.expr) -> bool:
    """`e` only computes a value from constants and names: literals, containers of them, operators,
    and calls of `_READERS` (a knob read from the environment); no other call, attribute or
    subscript read (either may run code), no walrus, no lambda or comprehension."""
    if isinstance(e, (ast.Constant, ast.Name)):
        return True
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        return all(_pure(x) for x in e.elts)
    if isinstance(e, ast.Dict):
        return all(isinstance(k, ast.Constant) for k in e.keys) and all(_pure(v) for v in e.values)
    if isinstance(e, ast.UnaryOp):
        return _pure(e.operand)
    if isinstance(e, ast.BinOp):
        return _pure(e.left) and _pure(e.right)
    if isinstance(e, ast.BoolOp):
        return all(_pure(v) for v in e.values)
    if isinstance(e, ast.Compare):
        return _pure(e.left) and all(_pure(c) for c in e.comparators)
    if isinstance(e, ast.IfExp):
        return _pure(e.test) and _pure(e.body) and _pure(e.orelse)
    if isinstance(e, ast.Call):
        return _dotted(e.func) in _READERS and not e.keywords and all(_pure(a) for a in e.args)
    return False


def _reads(body: list[ast.stmt]) -> set[str]:
    return {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
