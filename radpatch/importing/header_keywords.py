"""A keyword argument changed, added or taken away in a call of a definition's header (a decorator
`@dec(k=1)`, a parameter's default `a=g(k=1)`): said as `set_keyword` on the definition's scope
instead of a `replace_decorator` or `set_default` of the whole expression, which an upstream edit
of another argument there breaks. set_keyword changes a header call of its scope (and of the
definitions right in it) where the scope's body holds no call it changes; the step is written only
where that call is the scope's one call to the callee, headers and body together, before and after,
so apply and its inverse find it and nothing else."""

from __future__ import annotations

import ast

from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.keywords import keyword_changes, keyword_toggle
from radpatch.importing.statements import Sources, key, segment

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def header_keyword_steps(
    src: Sources, qual: str, b: ast.stmt, a: ast.stmt, old: ast.expr, new: ast.expr
) -> list[ImportStep] | None:
    """set_keyword steps (scope `qual`, the definition `b` that becomes `a`) when all that differs
    between the header expressions `old` and `new` is keyword arguments of one call, else None."""
    changes = keyword_changes(old, new)
    toggle = None if changes else keyword_toggle(old, new)
    call = changes[0].call if changes else toggle.call if toggle is not None else None
    if call is None or not (_alone(b, call.func) and _alone(a, call.func)):
        return None
    callee = segment(src, call.func)
    if callee is None:
        return None
    steps: list[ImportStep] = []
    for c in changes:
        was, to = segment(src, c.old), segment(src, c.new)
        if was is None or to is None:
            return None
        keys: tuple[tuple[str, Value], ...] = (
            ("scope", qual),
            ("call", callee),
            ("keyword", c.name),
            ("from", was),
            ("to", to),
        )
        steps.append(ImportStep("set_keyword", keys))
    if toggle is not None:
        value = segment(src, toggle.value)
        if value is None:
            return None
        said: list[tuple[str, Value]] = [("scope", qual), ("call", callee), ("keyword", toggle.name)]
        said.append(("to" if toggle.added else "from", value))
        if toggle.after is not None:
            said.append(("after", toggle.after))
        if toggle.before is not None:
            said.append(("before", toggle.before))
        steps.append(ImportStep("set_keyword", tuple(said)))
    return steps


def _alone(d: ast.stmt, func: ast.expr) -> bool:
    """The definition `d` calls `func` once: in its header (decorators, defaults), its body and the
    headers of the definitions in it together."""
    want = key(func)
    return sum(1 for n in ast.walk(d) if isinstance(n, ast.Call) and key(n.func) == want) == 1
