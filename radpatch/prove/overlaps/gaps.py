"""Two insertions at one place although their anchors differ: `insert_after` a statement and
`insert_before` the statement right after it, `insert_definitions` after one definition and before
the next, `into:` a class (the end of its body) and after its last method; and `add_import` (or a
`set_constant` of a new name, which goes after the imports) with an insertion anchored on the last
import (att23 F2). The registry text cannot tell (it does not say which statement follows which); a
release's file can. On the file, each insertion alone goes into a gap between two lines of code:
the same gap, at the same indentation (one block), is one place. Imports commute with imports (two
runs of imports only at one gap are not a pair), not with a statement inserted at that gap.
Such a pair is then tried in both orders on the file (prove.overlaps.order_matters, the one decision
of `list`, `verify` and `apply`): an insertion that stays next to its own anchor (after the one
statement, before the next) writes the same file in either order, so it is no overlap (a
`requires:` between them would change nothing); two that both go after the same statement (an
`insert_after` the last import and the new import) are one.

prove.overlaps.pairs asks here for the pairs of anchors its static test leaves apart (`maybe`,
`maybe_ops`), with the release's module from verify's cache (`list`, `verify`; no network) or the
installed file (`apply`).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable

from packaging.version import Version

from radpatch import source_lines
from radpatch.errors import RadpatchError
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.registry.touch import Touch

# (entry, rewrite, release) -> the text of the module the rewrite changes there, before any entry did, or None
Texts = Callable[[Patch, Rewrite, Version], str | None]


def maybe(a: Touch, b: Touch) -> bool:
    """Two anchors the registry text leaves apart that a file may show to be one place: in one
    scope, or one of them a definitions anchor (a method's neighbour, the end of a class)."""
    if a.role != "anchor" or b.role != "anchor" or a.key == b.key:
        return False
    return a.scope == b.scope or a.key.startswith("definitions ") or b.key.startswith("definitions ")


def at_imports(op: Operation) -> bool:
    """An insertion the registry anchors nowhere: it goes after the module's imports (`add_import`,
    `set_constant` of a new name: the operation's `at_imports()`)."""
    return op.at_imports() is not None


def maybe_ops(a: Operation, b: Operation) -> bool:
    """One goes after the imports, the other inserts at an anchor or after the imports too (not two
    imports: imports commute): only the file can tell whether they meet."""
    for one, other in ((a, b), (b, a)):
        if at_imports(one) and (
            any(t.role == "anchor" for t in other.touches())
            or (at_imports(other) and not (one.at_imports() == other.at_imports() == "import"))
        ):
            return True
    return False


def same_place(a: Operation, b: Operation, text: str) -> bool:
    """On `text`, each insertion alone goes into the same gap between two lines of code, in one
    block, and not both with imports only there (imports commute)."""
    pa, pb = _places(a, text), _places(b, text)
    return any(
        (line, indent) == (other_line, other_indent) and not (imports and other_imports)
        for line, indent, imports in pa
        for other_line, other_indent, other_imports in pb
    )


def in_order(first: Operation, then: Operation, text: str) -> str | None:
    """`first` then `then` on `text`: the text written, or None when either fails."""
    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.source import Source

    try:
        with code_errors():
            return then.forward(first.forward(Source.parse(text))).text
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
        return None


@functools.lru_cache(maxsize=256)
def _places(op: Operation, text: str) -> frozenset[tuple[int, str, bool]]:
    """Where the insertion goes in `text`: (the last line of code before it, the indentation of its
    first line, whether it is imports only) per inserted run of lines."""
    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.source import Source

    try:
        with code_errors():
            after = op.forward(Source.parse(text)).text
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
        return frozenset()
    return inserted(text, after)


def places(op: Operation, text: str) -> frozenset[tuple[int, str, bool]]:
    """Where the insertion goes in `text` (see `_places`): empty when it inserts nothing or fails."""
    return _places(op, text)


def inserted(before: str, after: str) -> frozenset[tuple[int, str, bool]]:
    """Each run of lines `after` adds to `before`: (the last line of code before it in `before`,
    the indentation of its first line, whether it is imports only); for a change known only by
    its two texts (an applied entry's record: prove.overlaps.applied)."""
    old, new = source_lines.split(before), source_lines.split(after)
    out: set[tuple[int, str, bool]] = set()
    for tag, i1, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        added = [ln for ln in new[j1:j2] if _code(ln)]
        if tag != "insert" or not added:
            continue
        imports = all(ln.lstrip().startswith(("import ", "from ")) for ln in added)
        last = i1 - 1
        while last >= 0 and not _code(old[last]):
            last -= 1
        out.add((last, added[0][: len(added[0]) - len(added[0].lstrip())], imports))
    return frozenset(out)


def _code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")
