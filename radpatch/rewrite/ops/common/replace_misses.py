"""Why a `replace`'s `find` matched nothing, where the code holds something close: a statement
`find` that is a keyword argument a call passes (the `set_keyword` to write instead), an expression
`find` that is a call passing other arguments, or a part of a larger expression that is not an
expression of its own. Gathered only for the refusal."""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from radpatch.rewrite.matching import calls_to, code_of, enclosing_expression, lines_of
from radpatch.rewrite.ops.common.no_match import Explanation
from radpatch.rewrite.patterns import expr_key, pretty
from radpatch.rewrite.tree import Path_, nodes_of

if TYPE_CHECKING:
    from radpatch.rewrite.ops.replace import Replace


def keyword_or(
    otherwise: Callable[[], Explanation], module: cst.Module, scope: Path_, op: Replace, offset: int
) -> Callable[[], Explanation]:
    """A statement `find` such as `daemon=True` that no statement equals but a call of the scope
    passes as a keyword argument: a keyword argument is neither a statement nor an expression, so
    say so, and give the set_keyword rewrite to write instead. Else the usual explanation."""

    def explain() -> Explanation:
        kw = _as_keyword(op.find)
        passed = _passing(module, scope, *kw) if kw else []
        if not kw or not passed:
            return otherwise()
        name, value = kw
        call, arg = passed[0]
        callee = code_of(module, call.func).strip()
        same = [a for c, a in passed if expr_key(code_of(module, c.func)) == expr_key(callee)]
        lines = lines_of(module, [a.value for a in same], offset)
        new = _as_keyword(op.with_)
        fields = {
            "scope": op.scope,
            "call": callee,
            "keyword": name,
            "from": value,
            "to": new[1] if new and new[0] == name else "<new value>",
        }
        yaml = ", ".join(f"{k}: {_yaml_scalar(v)}" for k, v in fields.items())
        yaml += ", occurrence: 1" if len(same) > 1 else ""
        several = (
            f" ({len(same)} calls to `{callee}` pass it, at lines {', '.join(map(str, lines))}: "
            "`occurrence:` picks one, in source order, or `occurrence: all` changes every one)"
            if len(same) > 1
            else ""
        )
        return (
            f"`{name}={value}` is a keyword argument of the call to `{callee}` at line {lines[0]}, not a statement",
            True,
            f"`find` matches statements and expressions, and a keyword argument is neither: change it with "
            f"set_keyword{several}:\n  - set_keyword: {{{yaml}}}",
        )

    return explain


def part_or(
    otherwise: Callable[[], Explanation], module: cst.Module, scope: Path_, pattern: str, offset: int
) -> Callable[[], Explanation]:
    """An expression `find` that no expression equals but the code holds: a call passing other
    arguments, or a part of a larger expression that is not an expression of its own to `ast`
    (`a and b` of `a and b and c`, `timeout` of `self.timeout`). Else the usual explanation."""

    def explain() -> Explanation:
        calls = calls_to(module, scope, pattern)
        if calls:
            shown = "; ".join(
                f"line {line}: `{_short(pretty(code_of(module, c)))}`"
                for line, c in zip(lines_of(module, calls[:3], offset), calls)
            )
            return (
                f"the call(s) to the same callee in it pass other arguments: {shown}",
                True,
                "fix `find`: write the call with every argument it passes (any layout); to change one keyword "
                "argument, use set_keyword",
            )
        outer = enclosing_expression(module, scope, pattern)
        if outer is None:
            return otherwise()
        why = {
            cst.BooleanOperation: "Python reads a chain of `and`/`or` as one operation over all its operands",
            cst.BinaryOperation: "operators group left to right and by precedence (`x + a + b` is `(x + a) + b`)",
            cst.Call: "a call's arguments are each an expression, not together",
            cst.Attribute: "an attribute's name is not an expression of its own",
            cst.Comparison: "Python reads a chained comparison as one comparison over all its operands",
        }.get(type(outer), "it is not one of the expressions the code is made of")
        return (
            f"`{_short(pattern)}` is part of `{_short(pretty(code_of(module, outer)))}` "
            f"(line {lines_of(module, [outer], offset)[0]}), but not an expression of its own there: {why}",
            True,
            "make `find` the whole expression shown, and `with` the whole expression it becomes",
        )

    return explain


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


def _as_keyword(code: str) -> tuple[str, str] | None:
    """(name, value) when `code` is one `name=value` (what a keyword argument typed alone parses as)."""
    try:
        body = ast.parse(textwrap.dedent(code).strip()).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(body) != 1 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1:
        return None
    target = body[0].targets[0]
    return (target.id, ast.unparse(body[0].value)) if isinstance(target, ast.Name) else None


def _passing(module: cst.Module, scope: Path_, name: str, value: str) -> list[tuple[cst.Call, cst.Arg]]:
    """The calls in the scope passing `name=value` (AST-compared), in source order."""
    key = expr_key(value)
    out = []
    for p in nodes_of(scope, cst.Call):
        call = p[-1]
        assert isinstance(call, cst.Call)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == name and expr_key(code_of(module, arg.value)) == key:
                out.append((call, arg))
    return out


_PLAIN = re.compile(r"^[A-Za-z_<][\w.>]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


def _yaml_scalar(text: str) -> str:
    """`text` as a YAML flow scalar that reads back as this string (quoted unless plainly a name)."""
    return text if _PLAIN.match(text) and text.lower() not in _YAML_WORDS else json.dumps(text)
