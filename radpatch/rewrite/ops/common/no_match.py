"""Why nothing matched, gathered only for the refusal: a statement `find` that sits inside a line
(a one-line suite, or beside another statement after `;`), else the closest candidate."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from radpatch.rewrite.inline import inline_statements
from radpatch.rewrite.matching import lines_of, statement_count
from radpatch.rewrite.nearest import closest
from radpatch.rewrite.tree import Path_, block_body, statement_slots

Explanation = tuple[str, bool] | tuple[str, bool, str]  # (detail, plausible[, hint]) of a pattern that matched nowhere


def scope_statements(scope: Path_) -> list[cst.CSTNode]:
    return [block_body(b[-1])[i] for b, i in statement_slots(scope)]


def statement_candidates(module: cst.Module, scope: Path_, pattern: str, offset: int) -> Callable[[], Explanation]:
    """The no-match explanation of a statement `find`: where it sits inside a line (a one-line
    suite, or beside another statement after `;`), which whole-line matching cannot take, else
    the closest statement of the scope."""

    def explain() -> Explanation:
        inline = inline_statements(module, scope, pattern)
        if inline:
            first = lines_of(module, [i.first for i in inline], offset)
            shown = ", ".join(map(str, first))
            where = (
                f"it is at line {shown}, but not on lines of its own: it starts or ends inside a line"
                if statement_count(pattern) > 1
                else f"it is at line {shown}, but not on a line of its own"
            )
            whole = inline[0].lines
            if whole is None:
                return f"{where} (in a one-line suite such as `if x: y`)", True, INLINE_HINT
            if "\n" not in whole and len(whole) < 160:
                hint = f"statements match as whole lines: make `find` the whole line it is part of, `{whole}`"
            else:
                end = first[0] + whole.count("\n")
                hint = (
                    f"statements match as whole lines: make `find` the whole lines {first[0]}-{end} it is part "
                    "of, every statement on them"
                )
            return f"{where} (beside another statement after `;`)", True, hint
        return closest(module, scope_statements(scope), pattern, offset)

    return explain


INLINE_HINT = (
    "statements match as whole lines: make `find` the whole statement it is part of (`if x: return 1`; for "
    "`else: y = 2`, the whole if/else)"
)


def candidates(
    module: cst.Module, nodes: Callable[[], Sequence[cst.CSTNode]], pattern: str, offset: int
) -> Callable[[], tuple[str, bool]]:
    """The no-match explanation of `pattern` among `nodes()`, gathered only when nothing matched."""
    return lambda: closest(module, nodes(), pattern, offset)
