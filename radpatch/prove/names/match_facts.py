"""Path facts (path_facts.py) a `match` statement tells: per case, what its pattern says of the
subject (`case 1:` is `subject == 1` there, false in the cases after it)."""

from __future__ import annotations

import ast

from .path_facts import Facts


def case_facts(subject: ast.expr, cases: list[ast.AST], split: frozenset[int] = frozenset()) -> list[Facts]:
    """Per case of `match subject:` and then for no case matched, the facts of its path: `case 1:`
    is `subject == 1` there, and false in the cases after it (unless it has a guard, and its guard
    coming out false is not a path of its own: `split`); `match [x, z]:` / `case [1, 2 as y]:` is
    `x == 1` and `z == 2` there (false after it: when that is one fact)."""
    out: list[Facts] = []
    missed: Facts = {}
    for i, case in enumerate(cases):
        told = pattern_facts(subject, case.pattern)  # type: ignore[attr-defined]
        out.append(missed | told)
        if len(told) == 1 and (case.guard is None or i in split):  # type: ignore[attr-defined]
            missed = missed | {k: not v for k, v in told.items()}
    return [*out, missed]


def binding_guards(cases: list[ast.AST], most: int = 3) -> frozenset[int]:
    """The guarded cases whose pattern captures a name or whose guard binds one (a walrus): where the
    guard comes out false, the later cases run with those bound (`case 1 if (v := b):` / `case _:`).
    None past `most` of them (each is one more way through the later cases)."""
    out = frozenset(
        i
        for i, case in enumerate(cases)
        if case.guard is not None  # type: ignore[attr-defined]
        and (
            any(isinstance(n, ast.NamedExpr) for n in ast.walk(case.guard))  # type: ignore[attr-defined]
            or any(isinstance(getattr(n, "name", None), str) for n in ast.walk(case.pattern))  # type: ignore[attr-defined]
        )
    )
    return out if len(out) <= most else frozenset()


def pattern_facts(subject: ast.expr, p: ast.AST) -> Facts:
    """What matching `p` against `subject` tells (of a name compared with a constant)."""
    if type(p).__name__ == "MatchAs" and p.pattern is not None:  # type: ignore[attr-defined]
        return pattern_facts(subject, p.pattern)  # type: ignore[attr-defined]
    if type(p).__name__ == "MatchSequence" and isinstance(subject, (ast.List, ast.Tuple)):
        items = p.patterns  # type: ignore[attr-defined]
        starred = any(type(i).__name__ == "MatchStar" for i in items) or any(
            isinstance(e, ast.Starred) for e in subject.elts
        )
        if len(items) != len(subject.elts) or starred:
            return {}
        out: Facts = {}
        for element, item in zip(subject.elts, items):
            out |= pattern_facts(element, item)
        return out
    value = getattr(p, "value", None) if type(p).__name__ == "MatchValue" else None
    if isinstance(subject, ast.Name) and isinstance(value, ast.Constant):
        if type(value.value) in (int, str, bool, bytes):
            return {(subject.id, "eq", (type(value.value).__name__, value.value)): True}
    return {}
