"""set_default's and set_bases' change of a module-level def or class that a later statement of the
module undoes (issue 21, later53): `f.__defaults__ = (...)` (a positional parameter's default),
`f.__kwdefaults__ = {...}`, `f.__kwdefaults__["p"] = ...`, `del f.__kwdefaults__["p"]` (a keyword-only
one's), `C.__bases__ = (...)`, their setattr and delattr, also through another name (`g = f`) or in a
function of the module a later call passes it to (rewrite.later_runs). A method (`C.f`) or a nested
class is not read. Standard library only but for the refusal (rewrite.matching)."""

from __future__ import annotations

import ast
import re

from radpatch.rewrite.call_arguments import Escaped
from radpatch.rewrite.implicit_runs import shown_text
from radpatch.rewrite.later_changes import later_attributes
from radpatch.rewrite.later_runs import Unfollowed, runs_after
from radpatch.rewrite.matching import LaterChange

_READS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__"})


def refuse_later_definition(text: str, qualname: str, op: str, parameter: str | None = None) -> None:
    """Refuse set_default of `parameter` (or set_bases, without one) on the def or class `qualname`
    when a later module statement replaces what the change gave."""
    if "." in qualname or not re.search(r"__(?:kw)?defaults__|__bases__|\b(?:set|del)attr\b", text):
        return
    body = ast.parse(text).body
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef) if parameter else (ast.ClassDef,)
    defs = [n for n in body if isinstance(n, kinds) and n.name == qualname]
    if not defs:
        return
    bound = defs[-1]
    attr = "__bases__"
    if parameter is not None and isinstance(bound, (ast.FunctionDef, ast.AsyncFunctionDef)):
        keyword_only = any(a.arg == parameter for a in bound.args.kwonlyargs)
        attr = "__kwdefaults__" if keyword_only else "__defaults__"
    later = later_attributes(body, qualname, bound, attr, kind="function" if parameter else None)
    for node, names, shown in runs_after(body, qualname, bound):
        if isinstance(node, Unfollowed):
            later.append(shown)
            continue
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            inner: ast.AST | None = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr not in _READS:
            inner = node.func.value
        else:
            continue
        if isinstance(inner, ast.Attribute) and inner.attr == attr and isinstance(inner.value, ast.Name):
            later += [shown] if inner.value.id in names else []
    if later:
        first = min(later, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        at, said = getattr(first, "lineno", 0), shown_text(first)
        does = f" (`{said}`) sets {qualname}.{attr}" if not isinstance(first, Escaped) else f": {first.reason}"
        raise LaterChange(
            f"line {at}{does} after line {bound.lineno} defines {qualname}: the {op} may not be what the module "
            "keeps"
            + ("" if not isinstance(first, Escaped) else " (radpatch cannot follow what changes it from there)"),
            f"{op} proves an edit no later statement undoes; "
            + (
                f"change line {at} with a `replace` rewrite instead"
                if not isinstance(first, Escaped)
                else f"to make it unproven, rewrite line {bound.lineno} with `replace` after reading line {at}"
            ),
        )
