"""The importer's keyword steps (part of rewrites.Differ): a statement whose only change is keyword
arguments of one call, changed, added or taken away, said as `set_keyword` (one per keyword, on the
statements between, for several added or taken away together); and the note where a wider rewrite
says a keyword because no set_keyword can."""

from __future__ import annotations

import ast

from radpatch.importing import keyword_series
from radpatch.importing.import_steps import ImportStep
from radpatch.importing.keywords import (
    keyword_added_or_removed,
    keyword_changes,
    keyword_toggle,
    set_keyword,
    toggle_keyword,
)
from radpatch.importing.runs import Runs
from radpatch.importing.scope_walk import scope_body
from radpatch.importing.shapes import (
    DiffScope,
    copy_header,
    header,
    mark_after,
)


class KeywordSteps(Runs):
    """set_keyword steps for a changed statement; Differ's, through its bases."""

    def _note_keyword(self, scope: DiffScope, b: ast.AST, a: ast.AST, what: str) -> None:
        """A keyword added to a call or taken from it that no set_keyword says (a `**mapping`, a
        keyword put first before others, a call the inverse could not tell apart from another): the
        import notes why the rewrite is wider than the keyword."""
        said = keyword_added_or_removed(self.src, b, a)
        if said:
            self.fallbacks.append(
                f"{scope.qualname}: {said}: no set_keyword says it here (its place among the call's keywords, or "
                f"which call it is, cannot be told apart); replaced {what}"
            )

    def keyword(self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt, head: bool = False) -> bool:
        """`set_keyword` when all that changed (in a compound statement's header, with `head`) is the
        value of keyword arguments of one call."""
        b = bbody[i]
        changes = keyword_changes(header(b), header(a)) if head else keyword_changes(b, a)
        installed = scope_body(self.pristine, scope.qualname)
        steps = [set_keyword(self.src, scope, change, (bbody, i, a), installed, self.steps) for change in changes]
        if not changes:  # one keyword added or taken away: set_keyword without `from:` or `to:`
            toggle = keyword_toggle(header(b), header(a)) if head else keyword_toggle(b, a)
            steps = [toggle_keyword(self.src, scope, toggle, (bbody, i, a), installed, self.steps)] if toggle else []
            if not toggle and not head:  # several: one set_keyword each (importing.keyword_series)
                return self._keywords_one_by_one(scope, bbody, i, a, installed)
        if not steps or None in steps:
            return False
        self.steps.extend(s for s in steps if s is not None)
        if head:
            copy_header(b, a)
        else:
            bbody[i] = mark_after(a)
        return True

    def _keywords_one_by_one(
        self, scope: DiffScope, bbody: list[ast.stmt], i: int, a: ast.stmt, installed: list[ast.stmt] | None
    ) -> bool:
        """Several keywords added to (or taken from) one call, or one moved (taken away, added back),
        and keywords it keeps given new values (those first): a set_keyword per step, each said on
        the statement the earlier ones leave, each picking a call counted among others by its
        `occurrence:` (apply follows it through the earlier steps' edits); nothing chosen when one
        of them cannot be said."""
        b = bbody[i]
        made: list[ImportStep] = []
        for target in keyword_series.steps(b, a):
            toggle = keyword_toggle(bbody[i], target)
            earlier = [*self.steps, *made]
            # a keyword moved: added back where the step before took it away, so counted among the
            # calls as that step leaves the scope, not the installed one (which passes it)
            moved = toggle is not None and toggle.added and any(s.get("keyword") == toggle.name for s in made)
            counted = scope.body if moved else installed
            step = toggle_keyword(self.src, scope, toggle, (bbody, i, target), counted, earlier) if toggle else None
            value = keyword_changes(bbody[i], target) if toggle is None else []
            if len(value) == 1:  # a keyword the call keeps, given its new value before the others change
                step = set_keyword(self.src, scope, value[0], (bbody, i, target), installed, earlier)
            if step is None:
                bbody[i] = b
                return False
            made.append(step)
            bbody[i] = target
        if not made:
            bbody[i] = b
            return False
        self.steps.extend(made)
        bbody[i] = mark_after(a)
        return True
