"""Runs of statements as the importer's rewrite chooser says them (importing.rewrites): the
chooser's state (the steps so far, the before-tree changed as they are chosen, which step inserted
which statement), and runs deleted, or replaced as the smallest run that is unique before and
after (counted with `occurrence:` in the installed file where it cannot be). Insertions, new
definitions and imports are importing.insertions'."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from radpatch.errors import Inexpressible
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.scope_walk import expression_hits, is_expression_statement, scope_body, statement_hits
from radpatch.importing.shapes import DiffScope, NoUniqueRun, atomic, join_runs, mark_after
from radpatch.importing.statements import AFTER, DEFS, Sources, text_of

COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef, ast.ClassDef)


@dataclass
class Runs:
    """The chooser's state and the rewrites of whole statements: runs deleted or replaced
    (importing.insertions.Insertions inserts them). importing.rewrites.Differ enters blocks and
    statements on top of it."""

    src: Sources
    tree: ast.Module  # the before-tree, changed as rewrites are chosen
    pristine: ast.Module  # the before-tree as installed (occurrence is counted there)
    steps: list[ImportStep] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    made_by: dict[int, int] = field(default_factory=dict)  # id of a statement a step inserted -> that step's index

    def _record_inserted(self, stmts: list[ast.stmt]) -> None:
        """The statements the last step put in (at any depth) came from it."""
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.stmt):
                    self.made_by[id(n)] = len(self.steps) - 1

    def _earlier_slot(self, hits: list[tuple[list[ast.stmt], int]], n: int) -> int | None:
        """Where a rewrite of a run must go so that it runs before the steps of this entry that
        inserted its other matches (code moved up: inserted above, deleted below). The rewrites
        count `occurrence:` in the installed file and follows only rewrites of the same pattern,
        so the rewrite must run while the run is still unique. None: the other matches were not
        inserted by this entry's steps."""
        made = []
        others = 0
        for block, i in hits:
            run = block[i : i + n]
            if all(getattr(s, AFTER, False) for s in run):
                made += [self.made_by.get(id(s)) for s in run]
            else:
                others += 1
        if others != 1 or not made or None in made:
            return None
        return min(m for m in made if m is not None)

    def _emit_at(self, k: int, step: ImportStep) -> None:
        self.steps.insert(k, step)
        self.made_by = {node: (m + 1 if m >= k else m) for node, m in self.made_by.items()}

    def _definable(self, scope: DiffScope, name: str) -> bool:
        return sum(1 for s in scope.body if isinstance(s, DEFS) and s.name == name) == 1

    # --- runs of statements deleted or replaced ---------------------------------------------------

    def delete(self, scope: DiffScope, bbody: list[ast.stmt], i1: int, i2: int) -> None:
        # at a block's end `delete` (with `marker: comment`) leaves its mark as the block's last line,
        # so the block must keep a statement: one it would empty does not compile, and no rewrite says it
        # a module's own body may end empty: only its marker comment left, which Python reads as an empty module
        if i1 > 0 or i2 < len(bbody) or scope.kind == "module" and bbody is scope.body:
            lo, hi = atomic(self.src, bbody, i1, i2)
            if (lo, hi) == (i1, i2):
                # delete's inverse finds its own marker comment, so only the match itself must be unique
                hits = statement_hits(scope.body, bbody[i1:i2])
                many = len(hits) != 1
                earlier = self._earlier_slot(hits, i2 - i1) if many else None
                end = (("marker", "comment"),) if i2 == len(bbody) else ()  # no `pass` where the block ends
                if earlier is not None:
                    find = text_of(self.src, bbody[i1:i2])
                    self._emit_at(earlier, ImportStep("delete", (("scope", scope.qualname), ("find", find), *end)))
                    del bbody[i1:i2]
                    return
                beside = self._beside(scope, bbody, i1, i2) if many else None
                if beside is not None:  # context over a count: the run and a neighbour, unique, as a replace
                    lo, hi = beside
                    keep = text_of(self.src, [*bbody[lo:i1], *bbody[i2:hi]])
                    find = text_of(self.src, bbody[lo:hi])
                    self.steps.append(
                        ImportStep("replace", (("scope", scope.qualname), ("find", find), ("with", keep)))
                    )
                    del bbody[i1:i2]
                    return
                occurrence = self._occurrence(scope, bbody, i1, i2) if many else None
                if not many or occurrence:
                    keys: list[tuple[str, Value]] = [
                        ("scope", scope.qualname),
                        ("find", text_of(self.src, bbody[i1:i2])),
                    ]
                    if occurrence:
                        keys.append(("occurrence", occurrence))
                    keys.extend(end)
                    self.steps.append(ImportStep("delete", tuple(keys)))
                    del bbody[i1:i2]
                    return
        self.replace_run(scope, bbody, i1, i2, [])

    def replace_run(self, scope: DiffScope, bbody: list[ast.stmt], i1: int, i2: int, new: list[ast.stmt]) -> None:
        lo, hi = atomic(self.src, bbody, i1, i2)
        if lo == hi:  # nothing old in the run: it needs a neighbour to stand for
            lo, hi = atomic(self.src, bbody, lo - 1, hi) if lo > 0 else atomic(self.src, bbody, lo, hi + 1)
        while True:
            run = bbody[lo:hi]
            if not new and lo == i1 and hi == i2 or not run:
                was = lo, hi
                lo, hi = atomic(self.src, bbody, lo - 1, hi) if lo > 0 else atomic(self.src, bbody, lo, hi + 1)
                if lo == hi or hi > len(bbody) or (lo, hi) == was:  # no neighbour left to stand for the run
                    raise Inexpressible(f"a block of {scope.qualname} would become empty")
                continue
            replacement = [*bbody[lo:i1], *new, *bbody[i2:hi]]
            as_expression = is_expression_statement(run) and is_expression_statement(replacement)
            count = (
                len(expression_hits(scope.body, run[0].value))  # type: ignore[attr-defined]
                if as_expression
                else len(statement_hits(scope.body, run))
            )
            saved = bbody[lo:hi]
            bbody[lo:hi] = replacement
            later = (
                len(expression_hits(scope.body, replacement[0].value))  # type: ignore[attr-defined]
                if as_expression
                else len(statement_hits(scope.body, replacement))
                if replacement
                else 1
            )
            bbody[lo : lo + len(replacement)] = saved
            if count == 1 and later == 1 or (lo == 0 and hi == len(bbody)):
                break
            grown = atomic(self.src, bbody, lo, hi + 1) if hi < len(bbody) else atomic(self.src, bbody, lo - 1, hi)
            lo, hi = grown
        if later != 1:
            raise NoUniqueRun()
        occurrence = None
        if count != 1:
            occurrence = self._occurrence(scope, bbody, lo, hi)
            if occurrence is None:
                raise Inexpressible(f"the code to replace in {scope.qualname} is not unique and cannot be counted")
        # the rewrites merge equal counts statement by statement, and a one-line `from x import a` merged
        # with a parenthesised multi-line one loses its parentheses: write such an import on one line
        flat = {
            id(n)
            for o, n in zip(bbody[lo:hi], replacement)
            if len(bbody[lo:hi]) == len(replacement)
            and isinstance(o, ast.ImportFrom)
            and isinstance(n, ast.ImportFrom)
            and o.lineno == o.end_lineno
            and n.lineno != n.end_lineno
        }
        with_text = join_runs(self.src, bbody[lo:i1], new, bbody[i2:hi], flat)
        keys: list[tuple[str, Value]] = [
            ("scope", scope.qualname),
            ("find", text_of(self.src, bbody[lo:hi])),
            ("with", with_text),
        ]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(ImportStep("replace", tuple(keys)))
        bbody[i1:i2] = [mark_after(s) for s in new]
        self._record_inserted(new)

    def _beside(self, scope: DiffScope, bbody: list[ast.stmt], i1: int, i2: int) -> tuple[int, int] | None:
        """A run deleted that is not unique, with the fewest simple neighbours (up to two on each side,
        as GNU patch's hunk carries three lines of context) that make it unique, the neighbours alone
        unique once it is gone (what undoing the replace finds): a `find` that carries its context,
        over an `occurrence:` a new copy above it would shift. None: no such neighbours."""
        for before, after in ((0, 1), (1, 0), (1, 1), (0, 2), (2, 0), (1, 2), (2, 1), (2, 2)):
            lo, hi = i1 - before, i2 + after
            if lo < 0 or hi > len(bbody):
                continue
            near = [*bbody[lo:i1], *bbody[i2:hi]]
            if any(isinstance(n, COMPOUND) or getattr(n, AFTER, False) for n in near):
                continue
            if len(statement_hits(scope.body, bbody[lo:hi])) != 1:
                continue
            gone = bbody[i1:i2]
            del bbody[i1:i2]
            kept = len(statement_hits(scope.body, near))
            bbody[i1:i1] = gone
            if kept == 1:
                return lo, hi
        return None

    def _occurrence(self, scope: DiffScope, bbody: list[ast.stmt], lo: int, hi: int) -> int | None:
        """The run's number among its matches, in the installed file's source order (the rewrites'
        documented count); None when the run is not code of the installed file."""
        run = bbody[lo:hi]
        if any(getattr(s, AFTER, False) for s in run):
            return None
        body = scope_body(self.pristine, scope.qualname)
        if body is None:
            return None
        hits = statement_hits(body, run)
        line = run[0].lineno
        return next((n for n, (block, i) in enumerate(hits, 1) if block[i].lineno == line), None)
