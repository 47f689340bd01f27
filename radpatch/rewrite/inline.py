"""Statements equal to a `find` that start or end inside a line (`if x: return 1`, `a = 1; b = 2`):
searched only to say why a `find` matched no whole lines."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Sequence

import libcst as cst

from radpatch.rewrite.matching import code_of, flat
from radpatch.rewrite.patterns import code_key, parse_statements, stmt_key
from radpatch.rewrite.tree import Path_, block_holders, walk


@dataclasses.dataclass(frozen=True)
class Inline:
    """Statements equal to a `find` that start or end inside a line: `first`, the first of them;
    `lines`, the whole lines they are part of (None in a one-line suite such as `if x: y`)."""

    first: cst.CSTNode
    lines: str | None


@dataclasses.dataclass(frozen=True)
class _Item:
    """One `ast` statement of a block: a simple statement of a line, or a compound statement."""

    node: cst.CSTNode
    line: int  # index of its line in the block
    first: bool  # the first statement of its line
    last: bool  # the last statement of its line


def _items(body: Sequence[cst.CSTNode]) -> list[_Item]:
    out: list[_Item] = []
    for j, st in enumerate(body):
        if isinstance(st, cst.SimpleStatementLine):
            out.extend(_Item(small, j, k == 0, k == len(st.body) - 1) for k, small in enumerate(st.body))
        else:
            out.append(_Item(st, j, True, True))
    return out


def inline_statements(module: cst.Module, scope: Path_, code: str) -> list[Inline]:
    """The runs of statements equal to the statements of `code` that start or end inside a line
    (`if x: return 1`, `a = 1; b = 2` for `b = 2`, `x = 0; a = 1; b = 2` for `a = 1` and `b = 2`),
    which find_statements does not match (it matches whole lines). Searched only for a refusal."""
    want = flat(parse_statements(code))
    key = code_key(code)
    holders = walk(scope, lambda n: type(n) in (cst.IndentedBlock, cst.SimpleStatementSuite), block_holders)
    out: list[Inline] = []
    for holder in (
        [scope[-1], *(p[-1] for p in holders)] if isinstance(scope[-1], cst.Module) else (p[-1] for p in holders)
    ):
        suite = isinstance(holder, cst.SimpleStatementSuite)
        body: Sequence[cst.CSTNode] = holder.body  # type: ignore[attr-defined]
        items = [_Item(small, 0, False, False) for small in body] if suite else _items(body)
        for i in range(len(items) - len(want) + 1):
            run = items[i : i + len(want)]
            if (run[0].first and run[-1].last) or [type(t.node) for t in run] != want:
                continue  # whole lines: find_statements' to match
            try:
                if stmt_key("\n".join(textwrap.dedent(code_of(module, t.node)).strip() for t in run) + "\n") != key:
                    continue
            except SyntaxError:
                continue
            whole = None
            if not suite:
                lines = list(body[run[0].line : run[-1].line + 1])
                lines[0] = lines[0].with_changes(leading_lines=())
                whole = textwrap.dedent("".join(code_of(module, line) for line in lines)).strip()
            out.append(Inline(run[0].node, whole))
    return out
