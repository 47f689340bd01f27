"""Runs of statements inserted, as the importer's rewrite chooser says them (importing.rewrites):
next to an anchor that matches once (`insert_after`/`insert_before`, grown by neighbours, else
counted with `occurrence:`), under a comment the patch adds with blank lines above it (a
`replace`), or as new definitions (`insert_definitions` with a payload) and imports
(`add_import`). Each is simulated on the before-tree as it is chosen (Differ's base)."""

from __future__ import annotations

import ast

from radpatch.errors import Inexpressible
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.runs import Runs
from radpatch.importing.scope_walk import statement_hits
from radpatch.importing.shapes import DiffScope, after_imports, already_imports, atomic, binds, line_rest, mark_after
from radpatch.importing.statements import DEFS, Sources, added_comments, start_line, text_of, whole_lines


class Insertions(Runs):
    """Runs of statements inserted, new definitions and imports (importing.rewrites.Differ's base)."""

    def insert(self, scope: DiffScope, bbody: list[ast.stmt], i: int, new: list[ast.stmt]) -> None:
        if scope.kind == "module" and not bbody:  # att59 F3: an empty module (or one of comments only)
            # has no statement to stand next to: its code, whole, is a fill_module
            code = _filled(self.src) or text_of(self.src, new, comments=True)
            self.steps.append(ImportStep("fill_module", (("code", code),)))
            bbody[i:i] = [mark_after(s) for s in new]
            self._record_inserted(new)
            return
        if self._definitions(scope, bbody, i, new) or self._imports(scope, bbody, i, new):
            bbody[i:i] = [mark_after(s) for s in new]
            return
        code = text_of(self.src, new, comments=True)
        before = self._anchor(scope, bbody, i - 1, backward=True, new=(i, new)) if i > 0 else None
        after = self._anchor(scope, bbody, i, backward=False, new=(i, new)) if i < len(bbody) else None
        # an anchor whose inverse would take away a twin: undoing `insert_after` removes the statements
        # after its `find`, `insert_before` those before it, so when the inserted code equals them in
        # the installed file that file reads as patched too (apply refused it as "already contains"):
        # the other side's anchor, which finds the twin itself, tells the two apart
        sides = ((before, _same(bbody[i : i + len(new)], new)), (after, _same(bbody[max(i - len(new), 0) : i], new)))
        found = [c for c, _ in sides if c is not None]
        clear = [c for c, twin in sides if c is not None and not twin]
        # an anchor found once before one picked by a count, however much longer (issue 20: a count
        # shifts when a release adds a copy above the insertion; the neighbours it grew by do not)
        pick = min(clear or found, key=lambda c: (c[2] is not None, len(c[1])), default=None)
        if pick is None:
            if not bbody:  # an empty class or function body cannot be: Python needs a statement there
                raise Inexpressible(f"{scope.qualname} has no statement for the insertion to stand next to")
            raise Inexpressible(f"no statement in {scope.qualname} matches once to anchor the insertion at")
        if (
            before is not None
            and len(before[1]) <= len(pick[1])  # never a wider `find` than the insertion's, for a comment
            and added_comments(self.src, new[0])
            # the code carries the comment lines it opens with (rewrite.patterns.parse_code), not the
            # blank lines the patch adds above them: only those take the `replace` that can
            and _blank_lines_added_above(self.src, new[0])
            and self._insert_with_comment(scope, bbody, i, new, code, before)
        ):
            return
        where, find, occurrence = pick
        keys: list[tuple[str, Value]] = [("scope", scope.qualname), ("find", find), ("code", code)]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(ImportStep(where, tuple(keys)))
        bbody[i:i] = [mark_after(s) for s in new]
        self._record_inserted(new)

    def _insert_with_comment(
        self,
        scope: DiffScope,
        bbody: list[ast.stmt],
        i: int,
        new: list[ast.stmt],
        code: str,
        anchor: tuple[str, str, int | None],
    ) -> bool:
        """New statements under a comment the patch adds with blank lines above it (`\n# why` above
        `x = 1`), said as a `replace` of the statement above them by itself and them: an insertion's
        `code` carries the comment lines it opens with, not the blank lines above them, which a
        `with` writes. `anchor` is the insertion's own above it.
        False when the rewrites would move a comment after it (a replace of one line by several keeps
        the old last line's comment on the new last one) and no statement below can end both sides."""
        last, end = bbody[i - 1], new[-1]
        _, find, occurrence = anchor
        tail = ""
        rests = (line_rest(self.src, last), line_rest(self.src, end))
        if None not in rests and rests[0] != rests[1]:
            # the statement below, right below the anchor in the installed file, ends both sides
            if occurrence or i == len(bbody) or start_line(bbody[i]) != (last.end_lineno or 0) + 1:
                return False
            tail = text_of(self.src, [bbody[i]])
        gap = "\n" * _blank_lines_added_above(self.src, new[0])  # the rewrites write blank lines inside `with`
        keys: list[tuple[str, Value]] = [
            ("scope", scope.qualname),
            ("find", find + tail),
            ("with", find + gap + code + tail),
        ]
        if occurrence:
            keys.append(("occurrence", occurrence))
        self.steps.append(ImportStep("replace", tuple(keys)))
        bbody[i:i] = [mark_after(s) for s in new]
        self._record_inserted(new)
        return True

    def _anchor(
        self, scope: DiffScope, bbody: list[ast.stmt], k: int, backward: bool, new: tuple[int, list[ast.stmt]]
    ) -> tuple[str, str, int | None] | None:
        """(insert_after|insert_before, find, occurrence) anchored at bbody[k], grown away from the
        insertion point until it is unique."""
        lo, hi = atomic(self.src, bbody, k, k + 1)
        while True:
            run = bbody[lo:hi]
            hits = statement_hits(scope.body, run)
            at, stmts = new
            bbody[at:at] = stmts
            after = statement_hits(scope.body, run)  # the inverse finds the anchor again in the patched code
            del bbody[at : at + len(stmts)]
            if len(hits) == 1 and len(after) == 1:
                return ("insert_after" if backward else "insert_before", text_of(self.src, run), None)
            if backward and lo > 0:
                lo, hi = atomic(self.src, bbody, lo - 1, hi)
            elif not backward and hi < len(bbody):
                lo, hi = atomic(self.src, bbody, lo, hi + 1)
            else:
                occurrence = self._occurrence(scope, bbody, lo, hi)
                if occurrence is None:
                    return None
                return ("insert_after" if backward else "insert_before", text_of(self.src, run), occurrence)

    # --- new definitions and imports -------------------------------------------------------------

    def _definitions(self, scope: DiffScope, bbody: list[ast.stmt], i: int, new: list[ast.stmt]) -> bool:
        if (
            scope.kind not in ("module", "class")
            or bbody is not scope.body
            or not all(isinstance(s, DEFS) for s in new)
        ):
            return False
        names = [s.name for s in new]  # type: ignore[attr-defined]
        bound = {n for s in scope.body for n in binds(s)}
        if len(set(names)) != len(names) or bound & set(names) or any(not whole_lines(self.src, s) for s in new):
            return False
        anchor = None
        if i > 0 and isinstance(bbody[i - 1], DEFS) and self._definable(scope, bbody[i - 1].name):  # type: ignore[attr-defined]
            anchor = ("after", scope.child(bbody[i - 1].name) if scope.kind == "class" else bbody[i - 1].name)  # type: ignore[attr-defined]
        elif i < len(bbody) and isinstance(bbody[i], DEFS) and self._definable(scope, bbody[i].name):  # type: ignore[attr-defined]
            anchor = ("before", scope.child(bbody[i].name) if scope.kind == "class" else bbody[i].name)  # type: ignore[attr-defined]
        if anchor is None:
            return False
        gap = "\n\n\n" if scope.kind == "module" else "\n\n"
        payload = gap.join(text_of(self.src, [s], comments=True).rstrip("\n") for s in new) + "\n"
        self.steps.append(ImportStep("insert_definitions", (("payload", ", ".join(names)), anchor), payload=payload))
        return True

    def _imports(self, scope: DiffScope, bbody: list[ast.stmt], i: int, new: list[ast.stmt]) -> bool:
        if scope.kind != "module" or bbody is not scope.body:
            return False
        if not all(isinstance(s, (ast.Import, ast.ImportFrom)) and whole_lines(self.src, s) for s in new):
            return False
        if any(isinstance(s, ast.ImportFrom) and s.module == "__future__" for s in new):
            return False
        if any(isinstance(s, ast.ImportFrom) and any(a.name == "*" for a in s.names) for s in new):
            return False  # add_import takes no star import: a new statement next to an anchor says it
        if i != after_imports(bbody) or any(already_imports(bbody, s) for s in new):
            return False
        for s in new:
            comment = line_rest(self.src, s)  # the patch's own word on the line: add_import writes it too
            text = f"{ast.unparse(s)}  {comment}" if comment and comment.startswith("#") else ast.unparse(s)
            self.steps.append(ImportStep("add_import", (("import", text),)))
        return True


def _blank_lines_added_above(src: Sources, node: ast.stmt) -> int:
    """How many blank lines the patch adds right above the comment it wrote for `node` (an
    after-file statement): layout an insertion's `code` cannot carry, which a `with` can."""
    row = start_line(node) - added_comments(src, node)  # 1-based: the comment's first line
    n = 0
    while row - n - 1 >= 1 and row - n - 1 in src.added and not src.after[row - n - 2].strip():
        n += 1
    return n


def _same(run: list[ast.stmt], new: list[ast.stmt]) -> bool:
    """The installed statements `run` are the inserted ones (the same code)."""
    return len(run) == len(new) and [ast.dump(s) for s in run] == [ast.dump(s) for s in new]


def _filled(src: Sources) -> str | None:
    """What a diff adds after the whole of a module with no statement, as it adds it (blank lines and
    comments too), when it adds only there: fill_module writes it so, as GNU patch does (att64 F2: the
    blank line under a licence header was lost). None when it adds anywhere else."""
    n = len(src.before)
    if src.after[:n] != src.before or not any(ln.strip() for ln in src.after[n:]):
        return None
    return "\n".join(src.after[n:]).rstrip("\n") + "\n"
