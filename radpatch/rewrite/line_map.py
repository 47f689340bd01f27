"""Where a place of a module's text is after one rewrite's edit, for the runner's `occurrence:`
counted on the installed file (rewrite.runner): a line the edit left alone (`line_map`), and a
position on a line it changed, followed character by character through the changed region
(`follow`): two rewrites of one call picked by `occurrence:` (an element added to its `choices=`,
another to its second argument) change the same line, and the second's match, the display it
changes, is still there, further along the line."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

Lines = tuple[str, ...]
# the module's lines before and after one rewrite, and whether a place on a line it changed may be
# followed character by character: not through the code a `find` matched (replace, delete), which the
# rewrite wrote anew, so that no match inside it is the installed file's any more
Edit = tuple[Lines, Lines, bool]


def _blocks(before: Lines, after: Lines) -> list[tuple[str, int, int, int, int]]:
    """The edit's opcodes over whole lines (0-based): the lines before and after the edited region
    are matched first, so that a line equal to an edited one (two identical calls) is not matched
    against its twin's new place."""
    shorter = min(len(before), len(after))
    head = next((i for i in range(shorter) if before[i] != after[i]), shorter)
    tail = next((k for k in range(shorter - head) if before[-1 - k] != after[-1 - k]), shorter - head)
    out = [("equal", 0, head, 0, head)] if head else []
    mid_a, mid_b = before[head : len(before) - tail], after[head : len(after) - tail]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_opcodes():
        out.append((tag, head + i1, head + i2, head + j1, head + j2))
    if tail:
        out.append(("equal", len(before) - tail, len(before), len(after) - tail, len(after)))
    return out


def line_map(before: Lines, after: Lines) -> dict[int, int]:
    """1-based line of `before` -> its line in `after`, for the lines one rewrite's edit left alone."""
    out: dict[int, int] = {}
    for tag, i1, i2, j1, _ in _blocks(before, after):
        if tag == "equal":
            out.update((i + 1, j1 + i - i1 + 1) for i in range(i1, i2))
    return out


def follow(edits: Sequence[Edit], line: int, column: int) -> tuple[int, int] | None:
    """(line, column) of the text before `edits` (1-based line), where it is after them: None when
    an edit took away the text there (or changed it so that no character there is kept)."""
    for before, after, by_characters in edits:
        moved = _moved(before, after, line, column, by_characters)
        if moved is None:
            return None
        line, column = moved
    return line, column


def _moved(before: Lines, after: Lines, line: int, column: int, by_characters: bool) -> tuple[int, int] | None:
    for tag, i1, i2, j1, j2 in _blocks(before, after):
        if not i1 < line <= i2:
            continue
        if tag == "equal":
            return j1 + line - i1, column
        if tag != "replace" or not by_characters:
            return None
        # a changed region: the character at (line, column), if the edit kept it, and where it went
        old, new = "".join(before[i1:i2]), "".join(after[j1:j2])
        at = sum(len(s) for s in before[i1 : line - 1]) + column
        for same, a1, a2, b1, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if same == "equal" and a1 <= at < a2:
                return _line_column(after[j1:j2], b1 + at - a1, j1)
        return None
    return None


def _line_column(lines: Lines, offset: int, first: int) -> tuple[int, int]:
    """The 1-based line and the column of character `offset` of the joined `lines` (`first`: the
    0-based line the first of them is)."""
    for k, s in enumerate(lines):
        if offset < len(s):
            return first + k + 1, offset
        offset -= len(s)
    return first + len(lines), offset
