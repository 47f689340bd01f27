"""replace: the one expression or run of statements in `scope` equal to `find` becomes `with`.

An expression is merged node by node (rewrite/merge.py), so only what differs is rewritten; statements of
the same count are merged one by one; any other count is replaced whole, keeping the comments
above the first and after the last. Comment lines `with` writes above a statement (or after it)
where `find` says others are written in their place (merge.comment_lines). The inverse is the
same edit from `with` back to `find`: AST-equal to the original whatever the layout `find` was
typed in (revert restores the exact bytes from the kept original).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import is_expression, parse_problem
from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Fail, Field, Occurrence, Operation, code_key
from radpatch.registry.touch import Touch, code_trees, norm, on_find
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    from collections.abc import Callable

    import libcst as cst

    from radpatch.registry.code import expression_text
    from radpatch.rewrite.elifs import as_else, elif_hits
    from radpatch.rewrite.inline import inline_statements
    from radpatch.rewrite.matching import (
        find_expressions,
        find_statements,
        replace_on_path,
        run_length,
    )
    from radpatch.rewrite.merge import comment_lines, fit, merge, same_trailing_comment
    from radpatch.rewrite.ops.common import in_scope, slot_of, with_body
    from radpatch.rewrite.ops.common.no_match import Explanation, candidates, statement_candidates
    from radpatch.rewrite.ops.common.replace_misses import keyword_or, part_or
    from radpatch.rewrite.ops.common.selection import (
        nested_matches,
        select,
        statement_match,
        statement_paths,
        undo_pick,
    )
    from radpatch.rewrite.patterns import parse_code, parse_statements
    from radpatch.rewrite.scopes import find_scope
    from radpatch.rewrite.tree import Path_, block_body, nodes_of


@dataclass(frozen=True)
class Replace(Operation):
    """Replace the one statement(s) or expression in `scope` equal to `find` by `with_`."""

    scope: str
    find: str
    with_: str
    within: str | None = None
    occurrence: Occurrence = None

    KEY: ClassVar[str] = "replace"
    CONSUMES: ClassVar[bool] = True
    FIELDS: ClassVar[tuple[Field, ...]] = (
        SCOPE,
        Field("find", "code", "an expression or statement(s), AST-compared: any layout, quotes, comments, parentheses"),
        Field(
            "with", "code", "what replaces it: an expression for an expression, statements for statements (any number)"
        ),
        WITHIN,
        OCCURRENCE,
    )
    EXAMPLE: ClassVar[str] = (
        "scope: get_kv_cache_groups\n"
        "find: _get_kv_cache_groups_uniform_page_size(filtered_spec)\n"
        "with: _get_kv_cache_groups_uniform_page_size(filtered_spec, vllm_config)"
    )

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        find, with_ = str(values["find"]), str(values["with_"])
        if is_expression(find) != is_expression(with_):
            side = "find" if is_expression(find) else "with"
            if parse_problem(textwrap.dedent(find if side == "find" else with_).strip()):
                raise fail(
                    side,
                    f"`{side}` is an expression spread over lines, the other side statements; "
                    "write it as a statement (wrap it in parentheses) or make both sides expressions",
                )
            other = "with" if side == "find" else "find"
            why = _fragment(with_ if side == "find" else find)
            if why:
                raise fail(
                    other,
                    f"`{other}` is neither an expression nor statements ({why}), so it cannot stand where "
                    f"`{side}`, an expression, is; make both sides the whole expression it is part of "
                    "(the call, list or tuple)",
                )
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        return f"replace code in {self.scope}"

    def scope_name(self) -> str:
        return self.scope

    def touches(self) -> tuple[Touch, ...]:
        """The statement or expression its `find` matches (and the code it writes, which another's `find` may be in)."""
        return (on_find(self, self.find, "node", f"code {norm(self.find)}", code_trees(self.with_)),)

    def match_key(self) -> tuple[object, ...] | None:
        return ("find", self.scope, code_key(self.find), self.within)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _swap(m, self, offset, undo=False))

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return in_scope(src, self.scope, lambda m, offset: _swap(m, self, offset, undo=True))


def _fragment(code: str) -> str | None:
    """Why `code`, which parses (the loader checked), is a part of an expression rather than code of
    its own (`*x`: an item of a call, list or tuple; Python's parser takes it, its compiler not), or None."""
    text = textwrap.dedent(code).strip()
    if parse_problem(text):
        return None
    body = ast.parse(text).body
    if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Starred):
        return "a starred expression is an item of a call, list or tuple, not an expression on its own"
    return None


def _hits(module: cst.Module, scope: Path_, code: str, expression: bool) -> list[Path_]:
    if expression:
        return find_expressions(module, scope, code)
    return statement_paths(find_statements(module, scope, code))


def _swap(module: cst.Module, op: Replace, offset: int, undo: bool) -> cst.CSTNode:
    scope = find_scope(module, op.scope, offset)
    old, new = (op.with_, op.find) if undo else (op.find, op.with_)
    # an expression only when both sides are: `find: f(x)` with two statements replaces the statement f(x)
    expression = is_expression(op.find) and is_expression(op.with_)
    old_node: cst.CSTNode = (
        cst.parse_expression(expression_text(old)) if expression else cst.Module(body=parse_statements(old))  # type: ignore[arg-type]
    )
    elifs: list[Path_] = []
    if undo:
        # the result written into an if/elif chain as an `elif` branch is the result too (rewrite.elifs)
        elifs = [] if expression else elif_hits(module, scope, old)
        hit = undo_pick(
            module,
            _hits(module, scope, op.find, expression),
            _hits(module, scope, old, expression) + elifs,
            op,
            "the replacement (`with`)",
            op.scope,
            offset,
            cst.parse_expression(expression_text(new)) if expression else None,
            missing=None if expression else _not_whole_lines(module, scope, old, offset),
        )
    elif expression:
        kind = type(old_node)
        hit = select(
            module,
            _hits(module, scope, old, expression),
            "expression `find`",
            op.scope,
            op,
            offset,
            part_or(
                candidates(module, lambda: [p[-1] for p in nodes_of(scope, kind)], old, offset),
                module,
                scope,
                old,
                offset,
            ),
            nested=nested_matches(module, scope, op.scope, lambda p: _hits(module, p, old, expression), offset),
        )
    else:
        hit = statement_match(
            module, op.scope, old, op, offset, lambda otherwise, at: keyword_or(otherwise, module, at, op, offset)
        )
    if undo and any(hit is e for e in elifs):
        return as_else(hit, new)
    if expression:
        return replace_on_path(
            hit, fit(module, hit, merge(hit[-1], old_node, cst.parse_expression(expression_text(new))))
        )
    return _swap_statements(module, hit, old, new)


def _not_whole_lines(module: cst.Module, scope: Path_, code: str, offset: int) -> Callable[[], Explanation]:
    """Why an inverse finds no `with` statement: where it sits inside a line (joined with the next by `;`, a
    one-line suite), which whole-line matching cannot take (att63 F10: it said the result is not there)."""

    def explain() -> Explanation:
        if inline_statements(module, scope, code):
            detail = statement_candidates(module, scope, code, offset)()[0]
            return f"{detail}: radpatch undoes whole lines", False
        return "the rewrite's result is not there", False

    return explain


def _swap_statements(module: cst.Module, hit: Path_, old_code: str, new_code: str) -> cst.CSTNode:
    block, i = slot_of(hit)
    body = list(block_body(block[-1]))
    n = run_length(module, body, i, old_code)  # `find` typed as `a; b` spans two upstream lines
    old, new = parse_code(old_code), parse_code(new_code)
    if n == len(old) == len(new):
        stmts = [merge(o, a, b) for o, a, b in zip(body[i : i + n], old, new)]
    else:
        # The replaced lines' comments (above, and after the last one) stay where they were, unless
        # `with` writes others there than `find` says.
        stmts = list(new)
        lead = comment_lines(body[i].leading_lines, old[0].leading_lines, new[0].leading_lines)  # type: ignore[attr-defined]
        stmts[0] = stmts[0].with_changes(leading_lines=lead)
        last = body[i + n - 1]
        if (
            isinstance(last, cst.SimpleStatementLine)
            and isinstance(stmts[-1], cst.SimpleStatementLine)
            and same_trailing_comment(old[-1], stmts[-1])
        ):
            stmts[-1] = stmts[-1].with_changes(trailing_whitespace=last.trailing_whitespace)
    body[i : i + n] = stmts  # type: ignore[assignment]
    return with_body(block, body)
