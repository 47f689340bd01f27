"""Two insertions at one place although their anchors differ: `insert_after` a statement and
`insert_before` the statement right after it, `insert_definitions` after one definition and before
the next, `into:` a class (the end of its body) and after its last method. The registry text cannot
tell (it does not say which statement follows which); a release's file can. On the file, each
insertion alone goes into a gap between two lines of code: the same gap, at the same indentation
(one block), is one place. `list` and `verify` report such a pair, since a reviewer of a patch queue
wants to know that two entries meet; `apply` does not refuse it: each insertion stays next to its
own anchor, so either order writes the same file and a `requires:` between them would change nothing.

releases.overlaps asks here for the pairs of anchors its static test leaves apart (`maybe`), with
the release's module from verify's cache (`list`, `verify`; no network).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.registry.touch import Touch

if TYPE_CHECKING:
    pass

# (entry, rewrite, release) -> the text of the module the rewrite changes there, before any entry did, or None
Texts = Callable[[Patch, Rewrite, Version], str | None]


def maybe(a: Touch, b: Touch) -> bool:
    """Two anchors the registry text leaves apart that a file may show to be one place: in one
    scope, or one of them a definitions anchor (a method's neighbour, the end of a class)."""
    if a.role != "anchor" or b.role != "anchor" or a.key == b.key:
        return False
    return a.scope == b.scope or a.key.startswith("definitions ") or b.key.startswith("definitions ")


def same_place(a: Operation, b: Operation, text: str) -> bool:
    """On `text`, each insertion alone goes into the same gap between two lines of code, in one block."""
    return bool(_places(a, text) & _places(b, text))


@functools.lru_cache(maxsize=256)
def _places(op: Operation, text: str) -> frozenset[tuple[int, str]]:
    """Where the insertion goes in `text`: (the last line of code before it, the indentation of its
    first line) per inserted run of lines; an insertion of imports only is left out (imports commute)."""
    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.source import Source

    try:
        with code_errors():
            after = op.forward(Source.parse(text)).text
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
        return frozenset()
    old, new = text.splitlines(), after.splitlines()
    out: set[tuple[int, str]] = set()
    for tag, i1, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        added = [ln for ln in new[j1:j2] if _code(ln)]
        if tag != "insert" or not added or all(ln.lstrip().startswith(("import ", "from ")) for ln in added):
            continue
        before = i1 - 1
        while before >= 0 and not _code(old[before]):
            before -= 1
        out.add((before, added[0][: len(added[0]) - len(added[0].lstrip())]))
    return frozenset(out)


def _code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def cached() -> Texts:
    """The release's module from verify's cache (no network): None when verify has not read it."""
    from radpatch.releases import modules
    from radpatch.releases.wheels import Releases

    releases: list[Releases] = []

    def text(p: Patch, rw: Rewrite, v: Version) -> str | None:
        choice = p.target(rw.target).module_for(v)
        if choice is None:
            return None
        if not releases:
            releases.append(Releases.from_env())
        release = releases[0].cached(p.distribution, v, frozenset(choice.candidates))
        data = None if release is None else release.read(modules.choose(choice, (rw,), release).relpath)
        return _decoded(data)

    return text


def _decoded(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None
