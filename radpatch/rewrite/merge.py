"""Replace a matched node by a new form while keeping every byte the change does not need.

`find` matched `orig` structurally (formatting and comments aside). Walking `orig`, `find` and
`new` together, parts where `find` and `new` agree keep `orig`'s bytes; only the parts that
differ are taken from `new`. A list that only gains or loses trailing elements (call arguments,
parameters) is edited in place with its layout. The same walk with `find` and `new` swapped is
the inverse, so a replacement undoes byte for byte wherever the change itself is small.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Sequence
from typing import Any, cast

import libcst as cst

from radpatch.rewrite import commas

_LISTS_WITH_COMMAS = (cst.Arg, cst.Param)
_OPENING = {"args": "whitespace_before_args", "params": "whitespace_before_params"}


def merge(orig: cst.CSTNode, find: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    if find.deep_equals(new):
        return orig
    if not (type(orig) is type(find) is type(new)):
        return _fresh(orig, find, new)
    changes: dict[str, object] = {}
    for f in dataclasses.fields(orig):
        o, a, b = getattr(orig, f.name), getattr(find, f.name), getattr(new, f.name)
        if f.name == "leading_lines":  # the comment lines above a statement
            changes[f.name] = comment_lines(o, a, b)
        elif isinstance(o, cst.CSTNode) and isinstance(a, cst.CSTNode) and isinstance(b, cst.CSTNode):
            changes[f.name] = merge(o, a, b)
        elif _is_nodes(o) and _is_nodes(a) and _is_nodes(b):
            merged = _merge_list(orig, f.name, list(o), list(a), list(b))
            if merged is None:
                return _fresh(orig, find, new)
            changes[f.name] = type(o)(merged) if isinstance(o, tuple) else merged
        elif _same(a, b):
            continue
        else:
            return _fresh(orig, find, new)  # a plain value (a name, an operator's text) changes
    return orig.with_changes(**changes)


def _merge_list(
    parent: cst.CSTNode, field: str, o: list[cst.CSTNode], a: list[cst.CSTNode], b: list[cst.CSTNode]
) -> list[cst.CSTNode] | None:
    if len(o) == len(a) == len(b):
        return [merge(x, y, z) for x, y, z in zip(o, a, b)]
    if len(o) != len(a) or not all(isinstance(x, _LISTS_WITH_COMMAS) for x in [*a, *b]):
        return None
    common = min(len(a), len(b))
    gap = getattr(parent, _OPENING.get(field, ""), cst.SimpleWhitespace(""))
    head = next((i for i in range(common) if not _bare(a[i]).deep_equals(_bare(b[i]))), common)
    if head < common:  # elements added or taken away before the end: there, if all else is the same
        tail = next(
            (k for k in range(common - head) if not _bare(a[-1 - k]).deep_equals(_bare(b[-1 - k]))), common - head
        )
        if head + tail == len(b):
            out = list(o)
            for _ in range(len(a) - len(b)):
                out = commas.remove(out, head)  # type: ignore[type-var]
            return out
        if head + tail == len(a):
            out = list(o)
            for k, extra in enumerate(b[head : len(b) - tail]):
                out = commas.insert(out, head + k, _bare(extra), gap)  # type: ignore[type-var]
            return out
    # the shared elements are merged in place (keeping their commas and layout),
    # then the list grows or shrinks at its end
    out = [merge(x, _bare(y), _bare(z)) for x, y, z in zip(o[:common], a[:common], b[:common])]
    out.extend(o[common:])
    if len(b) > len(a):  # elements appended
        sep = commas.separator(out, gap)  # type: ignore[type-var]
        for extra in b[len(a) :]:
            out = commas.append(out, _bare(extra), sep)  # type: ignore[type-var]
        return out
    for _ in range(len(a) - len(b)):
        out = commas.pop(out)  # type: ignore[type-var]
    return out


def _bare(el: cst.CSTNode) -> cst.CSTNode:
    attr = "whitespace_after_arg" if isinstance(el, cst.Arg) else "whitespace_after_param"
    return el.with_changes(comma=cst.MaybeSentinel.DEFAULT, **{attr: cst.SimpleWhitespace("")})


def _fresh(orig: cst.CSTNode, find: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """`new` as written, keeping the comment lines above and comment after `orig`, and its
    parentheses: `orig`'s, unless `find` has some and `new` none (the change drops them), else
    `new`'s (`a * b` to `a * (b + c)`: the parentheses `with` needs are kept)."""
    keep: dict[str, object] = {}
    if hasattr(orig, "leading_lines") and hasattr(find, "leading_lines") and hasattr(new, "leading_lines"):
        keep["leading_lines"] = comment_lines(orig.leading_lines, find.leading_lines, new.leading_lines)
    if hasattr(orig, "lpar") and hasattr(new, "lpar"):
        o: Any = orig  # an expression: parentheses of its own
        dropped = getattr(find, "lpar", ()) and not cast(Any, new).lpar
        if o.lpar and not dropped:
            keep.update(lpar=o.lpar, rpar=o.rpar)
    if (
        isinstance(orig, cst.SimpleStatementLine)
        and isinstance(new, cst.SimpleStatementLine)
        and same_trailing_comment(find, new)
    ):
        keep["trailing_whitespace"] = orig.trailing_whitespace
    return new.with_changes(**keep) if keep else new


def comment_lines(
    orig: Sequence[cst.EmptyLine], find: Sequence[cst.EmptyLine], new: Sequence[cst.EmptyLine]
) -> list[cst.EmptyLine]:
    """The lines above a replaced statement: `orig`'s, unless `find` and `new` say different
    comments there; then `new`'s comment lines (from its first comment) in place of those of
    `orig` that `find` names (its last lines, when their comments are `find`'s), or below `orig`'s
    when `find` names none. With `find` and `new` swapped, the inverse takes them back out."""
    said, says = _comments(find), _comments(new)
    if said == says:
        return list(orig)
    keep = len(orig)
    if said:
        at = [k for k, e in enumerate(orig) if e.comment is not None]
        if len(at) < len(said) or _comments(orig[at[-len(said)] :]) != said:
            return list(orig)  # the comments `find` names are not there: nothing to replace them by
        keep = at[-len(said)]
    first = next((k for k, e in enumerate(new) if e.comment is not None), len(new))
    return [*orig[:keep], *new[first:]]


def _comments(lines: Sequence[cst.EmptyLine]) -> list[str]:
    return [e.comment.value for e in lines if e.comment is not None]


def same_trailing_comment(find: cst.CSTNode, new: cst.CSTNode) -> bool:
    """Whether `find` and `new` say the same comment after a simple statement's line (or none)."""
    a, b = getattr(find, "trailing_whitespace", None), getattr(new, "trailing_whitespace", None)
    ca, cb = getattr(a, "comment", None), getattr(b, "comment", None)
    return (ca.value if ca else None) == (cb.value if cb else None)


def enclosed(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` in parentheses when, bare, a comma or `=` would split it (a keyword argument's value, a
    parameter's default, a subscript): a tuple or an assignment expression without its own."""
    if isinstance(expr, (cst.Tuple, cst.NamedExpr)) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def fit(module: cst.Module, path: Sequence[cst.CSTNode], new: cst.CSTNode) -> cst.CSTNode:
    """`new` (an expression) with the parentheses it needs in the place of path[-1]: the
    replaced expression's own, unless they were there for it and `new` does without (`x * (a + b)`
    to `x * c`); parentheses added where `new` needs them (`x * a` to `x * (b + c)`)."""
    orig = path[-1]
    if not (hasattr(orig, "lpar") and hasattr(new, "lpar")):
        return new
    bare = new.with_changes(lpar=[], rpar=[])
    o: Any = orig

    def needs(expr: cst.CSTNode) -> bool:
        # `d[k, 0]` means `d[(k, 0)]`, but libcst reads it as two subscript elements, not the tuple written
        in_subscript = isinstance(expr, cst.Tuple) and len(path) > 1 and isinstance(path[-2], cst.Index)
        return in_subscript or _needs(module, path, expr)

    if o.lpar:
        if needs(orig.with_changes(lpar=[], rpar=[])) and not needs(bare):
            return bare
        return new.with_changes(lpar=o.lpar, rpar=o.rpar)
    if needs(bare):
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return bare


def _needs(module: cst.Module, path: Sequence[cst.CSTNode], bare: cst.CSTNode) -> bool:
    """Whether the expression `bare` (no parentheses of its own) in the place of path[-1] means
    something else than with parentheses (or does not parse without them)."""
    from radpatch.rewrite.matching import replace_on_path

    at = max((k for k, n in enumerate(path) if isinstance(n, (cst.BaseStatement, cst.BaseSmallStatement))), default=0)
    wrapped = bare.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    dumps: list[str | None] = []
    for node in (bare, wrapped):
        code = module.code_for_node(replace_on_path(tuple(path[at:]), node))
        try:
            dumps.append(ast.dump(ast.parse(textwrap.dedent(code).strip() + "\n")))
        except (SyntaxError, ValueError):
            dumps.append(None)
    return dumps[1] is not None and dumps[0] != dumps[1]


def _is_nodes(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, cst.CSTNode) for v in value)


def _same(a: object, b: object) -> bool:
    if isinstance(a, cst.CSTNode) and isinstance(b, cst.CSTNode):
        return a.deep_equals(b)
    if isinstance(a, Sequence) and not isinstance(a, str) and isinstance(b, Sequence) and not isinstance(b, str):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b
