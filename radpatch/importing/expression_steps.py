"""The importer's expression steps (part of rewrites.Differ): one expression of a statement (or of a
compound statement's header, a case's pattern) changed, said as a `replace` of that expression,
grown to the enclosing ones until its `find` is unique in the scope before and after (or, where
forced, the smallest with `occurrence:`)."""

from __future__ import annotations

import ast

from radpatch.importing.changed_expressions import concatenated, fitting, grouped, smallest_difference
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.runs import Runs
from radpatch.importing.scope_walk import expression_hits
from radpatch.importing.shapes import (
    DiffScope,
    mark_after,
)
from radpatch.importing.statements import segment, whole_lines


class ExpressionSteps(Runs):
    """`replace` of one expression; Differ's, through its bases."""

    def expression(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt) -> bool:
        b = bbody[i]
        if not whole_lines(self.src, b) or type(b) is not type(a):
            return False
        chain = smallest_difference(b, a)
        if len(chain) == 1 and isinstance(chain[0][0], (ast.Name, ast.Constant)):
            return False  # `find: 1` says less than the statement it is in: `self.limit = 1`
        if not chain or not self._replace_expression(scope, chain, force=False, swap=(bbody, i, a)):
            return False
        bbody[i] = mark_after(a)
        return True

    def _replace_expression(
        self,
        scope: DiffScope,
        chain: list[tuple[ast.expr, ast.expr]],
        force: bool,
        swap: tuple[list[ast.stmt], int, ast.stmt],
    ) -> bool:
        """`replace` of one expression, growing to enclosing expressions until it is unique in the
        scope, before and after (apply's proof finds `with` to undo it); with `force`, the
        smallest one with `occurrence:` when none is."""
        block, i, new = swap
        later: list[int] = []
        chain = [(eb, ea) for eb, ea in chain if not concatenated(self.src, eb)]
        for eb, ea in chain:
            old = block[i]
            block[i] = new
            later.append(len(expression_hits(scope.body, ea)))
            block[i] = old
            if len(expression_hits(scope.body, eb)) == 1 and later[-1] == 1:
                return self._emit_expression(scope, eb, ea, None, block[i], new)
        for (eb, ea), after in zip(chain, later):
            if force and after == 1:
                return self._emit_expression(scope, eb, ea, self._occurrence_of_expression(scope, eb), block[i], new)
        return False

    def _emit_expression(
        self, scope: DiffScope, b: ast.expr, a: ast.expr, occurrence: int | None, stmt: ast.stmt, after_stmt: ast.stmt
    ) -> bool:
        old, new = segment(self.src, b), grouped(self.src, a)
        if old is None or new is None:
            return False
        new = fitting(self.src, stmt, b, new, after_stmt)
        if new is None:
            return False
        keys: list[tuple[str, Value]] = [("scope", scope.qualname), ("find", old), ("with", new)]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(ImportStep("replace", tuple(keys)))
        return True

    def _occurrence_of_expression(self, scope: DiffScope, b: ast.expr) -> int | None:
        hits = expression_hits(scope.body, b)
        at = next((n for n, e in enumerate(hits, 1) if e is b), None)
        return at
