"""replace: the one expression or run of statements in `scope` equal to `find` becomes `with`.

An expression is merged node by node (rewrite/merge.py), so only what differs is rewritten; statements of
the same count are merged one by one; any other count is replaced whole, keeping the comments
above the first and after the last. The inverse is the same edit from `with` back to `find`:
AST-equal to the original whatever the layout `find` was typed in (revert restores the exact
bytes from the kept original).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import OCCURRENCE, SCOPE, WITHIN, Fail, Field, Operation
from radpatch.rewrite.source import Source, is_expression, parse_problem

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import (
        Path_,
        block_body,
        find_expressions,
        find_scope,
        find_statements,
        nodes_of,
        parse_statements,
        replace_on_path,
        run_length,
    )
    from radpatch.rewrite.merge import merge
    from radpatch.rewrite.ops.common import (
        candidates,
        in_scope,
        select,
        slot_of,
        statement_candidates,
        statement_paths,
        undo_pick,
        with_body,
    )
    from radpatch.rewrite.source import expression_text


@dataclass(frozen=True)
class Replace(Operation):
    """Replace the one statement(s) or expression in `scope` equal to `find` by `with_`."""

    scope: str
    find: str
    with_: str
    within: str | None = None
    occurrence: int | None = None

    KEY: ClassVar[str] = "replace"
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
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        return f"replace code in {self.scope}"

    def scope_name(self) -> str:
        return self.scope

    def forward(self, src: Source) -> Source:
        _load()
        return in_scope(src, self.scope, lambda m, offset: _swap(m, self, offset, undo=False))

    def inverse(self, src: Source) -> Source:
        _load()
        return in_scope(src, self.scope, lambda m, offset: _swap(m, self, offset, undo=True))


def _load() -> None:
    """libcst and the matching code, loaded when a rewrite runs (loading a registry must not)."""
    global cst, Path_, block_body, find_expressions, find_scope, find_statements, nodes_of, parse_statements
    global replace_on_path, run_length, merge, candidates, in_scope, select, slot_of, statement_candidates
    global statement_paths, undo_pick, with_body, expression_text
    import libcst as cst

    from radpatch.rewrite.matching import (
        Path_,
        block_body,
        find_expressions,
        find_scope,
        find_statements,
        nodes_of,
        parse_statements,
        replace_on_path,
        run_length,
    )
    from radpatch.rewrite.merge import merge
    from radpatch.rewrite.ops.common import (
        candidates,
        in_scope,
        select,
        slot_of,
        statement_candidates,
        statement_paths,
        undo_pick,
        with_body,
    )
    from radpatch.rewrite.source import expression_text


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
    if undo:
        hit = undo_pick(
            module,
            _hits(module, scope, op.find, expression),
            _hits(module, scope, old, expression),
            op,
            "the replacement (`with`)",
            op.scope,
            offset,
            cst.parse_expression(expression_text(new)) if expression else None,
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
            candidates(module, lambda: [p[-1] for p in nodes_of(scope, kind)], old, offset),
        )
    else:
        hit = select(
            module,
            _hits(module, scope, old, expression),
            "statement `find`",
            op.scope,
            op,
            offset,
            statement_candidates(module, scope, old, offset),
        )
    if expression:
        return replace_on_path(hit, merge(hit[-1], old_node, cst.parse_expression(expression_text(new))))
    return _swap_statements(module, hit, old, new)


def _swap_statements(module: cst.Module, hit: Path_, old_code: str, new_code: str) -> cst.CSTNode:
    block, i = slot_of(hit)
    body = list(block_body(block[-1]))
    n = run_length(module, body, i, old_code)  # `find` typed as `a; b` spans two upstream lines
    old, new = parse_statements(old_code), parse_statements(new_code)
    if n == len(old) == len(new):
        stmts = [merge(o, a, b) for o, a, b in zip(body[i : i + n], old, new)]
    else:
        # The replaced lines' comments (above, and after the last one) stay where they were.
        stmts = list(new)
        stmts[0] = stmts[0].with_changes(leading_lines=body[i].leading_lines)  # type: ignore[attr-defined]
        last = body[i + n - 1]
        if isinstance(last, cst.SimpleStatementLine) and isinstance(stmts[-1], cst.SimpleStatementLine):
            stmts[-1] = stmts[-1].with_changes(trailing_whitespace=last.trailing_whitespace)
    body[i : i + n] = stmts  # type: ignore[assignment]
    return with_body(block, body)
