"""What several operations share: running an edit on the one top-level definition it concerns,
code that does not parse as a refusal, the libcst trees kept while a file's status is read, and
the edit's small tree helpers. Its modules: `selection` (choosing the one match: `within:`,
`occurrence:`; finding a function), with `within_clause`, `match_probe` and `no_match` (saying
clearly why nothing matched), and `import_lines` (adding or removing a module-level line after the
imports).

Not an operation: radpatch.rewrite.ops loads every other module of the package as one, and this
package only when an operation runs (it imports libcst).
"""

from __future__ import annotations

import contextlib
import difflib
import sys
from collections.abc import Callable, Iterator, Sequence

import libcst as cst

from radpatch.rewrite.matching import SCOPE_MISSING, SCOPE_NEAR, MatchFailure, NearMiss, NotFound, replace_on_path
from radpatch.rewrite.source import Source, Top
from radpatch.rewrite.tree import Path_, block_body

Edit = Callable[[cst.Module, int], cst.CSTNode]


@contextlib.contextmanager
def code_errors() -> Iterator[None]:
    """Code that parses for `ast` but not for libcst (or not at all once combined) is a refusal;
    so is code nested deeper than the parsers can follow."""
    try:
        yield
    except cst.ParserSyntaxError as exc:
        raise MatchFailure(f"libcst cannot parse the code involved: {exc.message} (line {exc.raw_line})") from None
    except SyntaxError as exc:
        raise MatchFailure(
            f"the code involved does not parse for radpatch's Python {sys.version_info[0]}.{sys.version_info[1]}: "
            f"{exc.msg} (line {exc.lineno})",
            "code in a newer Python's grammar (the target's) is read only by a radpatch running on that Python or "
            "newer: run radpatch with it, or write the rewrite on code this Python can read",
        ) from None
    except (RecursionError, MemoryError):
        raise MatchFailure(
            "the code involved is nested too deeply for radpatch to analyse",
            "simplify the expression in the registry, or patch a shallower statement",
        ) from None


def in_scope(src: Source, qualname: str, edit: Edit) -> Source:
    """Run `edit` on a libcst module holding just the top-level definition `qualname` lives in."""
    if qualname == "<module>":
        return Source.parse(as_module(edit(parse_top(src.text), 0)).code)
    top = qualname.split(".")[0]
    hits = src.named(top)
    if len(hits) != 1:
        if hits or any(top in t.binds for t in src.tops):
            # several definitions (`@overload`s, if/else): the whole module, where find_scope chooses or says how
            return Source.parse(as_module(edit(parse_top(src.text), 0)).code)
        close = difflib.get_close_matches(top, src.names(), n=3)
        raise (NearMiss if close else NotFound)(
            f"scope {qualname!r}: the module defines no function or class {top!r}; {near(top, src.names())}",
            SCOPE_NEAR if close else SCOPE_MISSING,
            scope_gone=True,
        )
    t = src.tops[hits[0]]
    new = as_module(edit(parse_top(src.text_of(t.start, t.end)), t.start)).code
    return src.splice(hits[0], hits[0] + 1, new, (Top(t.name, 0, len(Source.parse_lines(new)), t.binds),))


_TREES: dict[str, cst.Module] | None = None  # inside kept_trees(): the last few definitions' trees by text
_TREES_KEEP = 4  # a drifted file's status: the definition, its caller, and both as the rewrites before left them
_TREES_MAX = 100_000  # characters: a larger definition is parsed again rather than kept
# Outside kept_trees(), the last few texts' trees: a plan runs each step's edit, then its match
# probes, its inverse and the reverse proof on the same definition text, each parsing it again (a
# third of a small rewrite's time); an entry proven again under each one stacked on it (prove.below)
# takes every lower entry off the same result, each parsing the same large class (Django's Query,
# 100,000 characters: a second each). The texts kept are bounded in all (`_RECENT_CHARS`), so the
# trees alive beside apply's analyses stay a few (each well under the analysis' own peak).
_RECENT: dict[str, cst.Module] = {}
_RECENT_KEEP = 4
_RECENT_MAX = 150_000  # characters: a larger definition is parsed again rather than kept
_RECENT_CHARS = 300_000  # characters of every kept text together


@contextlib.contextmanager
def kept_trees() -> Iterator[None]:
    """While active, the same definition text gives the same libcst tree, and with it matching's
    positions and closest candidate, which are kept per tree: a drifted file's status undoes and
    applies the same rewrite on the same definition. Off elsewhere: apply frees each tree before
    it analyses the next version of the module (its peak memory)."""
    global _TREES
    outer, _TREES = _TREES, {} if _TREES is None else _TREES
    try:
        yield
    finally:
        _TREES = outer


def parse_top(text: str) -> cst.Module:
    """libcst's tree of a top-level definition's (or a module's) text: kept inside kept_trees(),
    and the last few elsewhere, bounded in characters (trees are immutable)."""
    trees = _TREES if _TREES is not None else _RECENT if len(text) <= _RECENT_MAX else None
    keep = _TREES_KEEP if _TREES is not None else _RECENT_KEEP
    tree = trees.pop(text, None) if trees is not None else None
    if tree is None:
        tree = cst.parse_module(text)
    if trees is not None and len(text) <= (_TREES_MAX if trees is _TREES else _RECENT_MAX):
        trees[text] = tree
        while len(trees) > keep or (trees is _RECENT and sum(map(len, trees)) > _RECENT_CHARS):
            del trees[next(iter(trees))]
    return tree


def as_module(node: cst.CSTNode) -> cst.Module:
    assert isinstance(node, cst.Module)
    return node


def near(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=3)
    return f"closest: {', '.join(close)}" if close else "no similar name"


def with_body(block: Path_, body: Sequence[cst.BaseStatement]) -> cst.CSTNode:
    return replace_on_path(block, block[-1].with_changes(body=list(body)))


def slot_of(path: Path_) -> tuple[Path_, int]:
    """(block path, index) of the statement at the end of `path`."""
    block = path[:-1]
    body = block_body(block[-1])
    return block, next(i for i, s in enumerate(body) if s is path[-1])
