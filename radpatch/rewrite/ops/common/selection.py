"""Choosing the one match a rewrite means: narrowed by `within:` (`within_clause`), picked by
`occurrence:`, else unique; the hit an inverse restores; and, when nothing matched, the refusal that
says why (a match inside a nested function here; the closest candidate and a statement not on a line
of its own in `no_match`). Also: finding a function by name. The matches' positions without editing
and a match picked by its index are `match_probe`'s.
"""

from __future__ import annotations

import contextlib
import contextvars
import textwrap
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import libcst as cst

from radpatch.errors import Probed
from radpatch.registry.model import Occurrence
from radpatch.rewrite.matching import (
    Ambiguous,
    MatchFailure,
    NearMiss,
    NotFound,
    explaining,
    find_statements,
    lines_of,
    starts,
)
from radpatch.rewrite.ops.common.match_probe import pick_index, positions, probing
from radpatch.rewrite.ops.common.no_match import Explanation, statement_candidates
from radpatch.rewrite.ops.common.within_clause import is_within, nested_regions
from radpatch.rewrite.scopes import find_scope, nested_scopes
from radpatch.rewrite.tree import Path_, block_body

Edit = Callable[[cst.Module, int], cst.CSTNode]


class Selecting(Protocol):
    @property
    def within(self) -> str | None: ...

    @property
    def occurrence(self) -> Occurrence: ...


def statement_paths(hits: Sequence[tuple[Path_, int]]) -> list[Path_]:
    return [(*block, block_body(block[-1])[i]) for block, i in hits]


def select(
    module: cst.Module,
    hits: list[Path_],
    what: str,
    scope: str,
    op: Selecting | None,
    offset: int,
    no_match: Callable[[], Explanation],
    undo: cst.CSTNode | None = None,
    nested: Callable[[], list[tuple[str, int]]] | None = None,
) -> Path_:
    """The one hit the rewrite means: narrowed by `within`, picked by `occurrence`, else unique.
    `undo` is what the hit replaced (inverse of a replace), so `within` is judged as it was.
    `nested`: the matches inside functions defined in the scope (which it does not search), for
    a refusal that says which scope to write instead."""
    within = op.within if op else None
    everywhere = hits
    if within:
        hits = [h for h in hits if is_within(module, h, within, undo)]
    if probing():
        raise Probed(positions(module, hits, offset))
    pick = pick_index()
    nth = pick if pick is not None else op.occurrence if op else None
    if nth == "all":  # ops.forward runs the edit once per match, picking each; here only when there is none
        if hits:
            raise MatchFailure("`occurrence: all` is run by radpatch.rewrite.ops.forward, one match at a time")
        nth = None
    where = f"{scope}" + (f" within `{_one_line(within)}`" if within else "")
    if within and pick is None and isinstance(nth, int):
        _count_in_one(module, [(h, undo) for h in hits], within, what, scope, offset)
    if within and everywhere and not hits:
        lines = lines_of(module, [h[-1] for h in everywhere], offset)
        raise NotFound(
            f"{what} matches {len(everywhere)} time(s) in {scope} (lines {', '.join(map(str, lines))}) "
            f"but none within `{_one_line(within)}`",
            "fix `within:`: an enclosing statement of the match (a compound statement's header such as "
            "`for x in y:`, or a whole statement), written as in the code",
        )
    inner = (
        nested() if nested is not None and explaining() and (not hits or nth is not None and nth > len(hits)) else []
    )
    if inner and not hits:
        raise NotFound(
            f"{what} not found in {where} itself; it is inside a function defined in it: {_listed(inner)}",
            _scope_hint(inner, within),
        )
    if nth is not None and (hits or inner):  # no match at all: the usual explanation says why, as without it
        if nth <= len(hits):
            return hits[nth - 1]
        lines = lines_of(module, [h[-1] for h in hits], offset)
        shown = f" (the matches are at lines {', '.join(map(str, lines))})" if hits else ""
        if inner:
            raise NotFound(
                f"{what} has {len(hits)} match(es) in {where}{shown}; occurrence {nth} does not exist there. "
                f"{len(inner)} more {'is' if len(inner) == 1 else 'are'} inside a function defined in it, which "
                f"`scope: {scope}` does not search: {_listed(inner)}",
                _scope_hint(inner, within),
            )
        raise NotFound(
            f"{what} has {len(hits)} match(es) in {where}; occurrence {nth} does not exist{shown}",
            f"`occurrence:` counts the matches in the installed file's source order from 1: pick one of "
            f"1..{len(hits)}, or write `occurrence: all` for every one"
            if hits
            else "",
        )
    if len(hits) == 1:
        return hits[0]
    if not hits:
        detail, plausible, *hint = no_match() if explaining() else ("(closest candidate not searched)", False)
        raise (NearMiss if plausible else NotFound)(f"{what} not found in {where}; {detail}", *hint)
    lines = lines_of(module, [h[-1] for h in hits], offset)
    raise Ambiguous(f"{what} matches {len(hits)} times in {where} (ambiguous): lines {', '.join(map(str, lines))}")


def _count_in_one(
    module: cst.Module,
    hits: Sequence[tuple[Path_, cst.CSTNode | None]],
    within: str,
    what: str,
    scope: str,
    offset: int,
) -> None:
    """Refuse an `occurrence:` counted `within:` statements or clauses nested in one another (an
    `else:` in an `else:`): which one it counts in is not written, and a copy added to the outer
    one would move the count onto another clause's copy (att57 F5)."""
    held = nested_regions(module, hits, within)
    if held:
        lines = ", ".join(map(str, sorted(lines_of(module, held, offset))))
        raise Ambiguous(
            f"{what} matches {len(hits)} times within `{_one_line(within)}` in {scope}, in {len(held)} statements "
            f"or clauses it names nested in one another (lines {lines}): `occurrence:` counts inside one of them only",
            "anchor by a `within:` that names one of them alone (the header of the statement the clause belongs "
            "to, e.g. `while cond:`, or a statement in it), or by the innermost clause without `occurrence:`",
        )


def statement_match(
    module: cst.Module,
    scope_name: str,
    find: str,
    op: Selecting | None,
    offset: int,
    explain: Callable[[Callable[[], Explanation], Path_], Callable[[], Explanation]] | None = None,
) -> Path_:
    """The path to the first statement of the one run of statements equal to `find` in the scope
    (narrowed by `within:`, picked by `occurrence:`), or the refusal that says why not; `explain`
    may put its own explanation before the usual one (given the scope's path)."""
    scope = find_scope(module, scope_name, offset)

    def hits(path: Path_) -> list[Path_]:
        return statement_paths(find_statements(module, path, find))

    otherwise = statement_candidates(module, scope, find, offset)
    return select(
        module,
        hits(scope),
        "statement `find`",
        scope_name,
        op,
        offset,
        explain(otherwise, scope) if explain else otherwise,
        nested=nested_matches(module, scope, scope_name, hits, offset),
    )


def _listed(inner: list[tuple[str, int]]) -> str:
    return ", ".join(f"line {line} in `{q}`" for q, line in inner)


def _scope_hint(inner: list[tuple[str, int]], within: str | None) -> str:
    q = inner[0][0]
    several = sum(1 for name, _ in inner if name == q) > 1
    return (
        f"a function defined inside the scope is a scope of its own: write the rewrite for the match there with "
        f"`scope: {q}`"
        + (" and `occurrence:` (counted in that scope)" if several else "")
        + (" (check `within:` too)" if within else "")
        + "; `occurrence:` counts the matches of one scope"
    )


def nested_matches(
    module: cst.Module, scope: Path_, qualname: str, match: Callable[[Path_], Sequence[Path_]], offset: int
) -> Callable[[], list[tuple[str, int]]]:
    """(qualified name, line) of each match of `match` in the functions and classes defined inside
    the scope at `path`, which the scope's own search does not enter; gathered only for a refusal."""

    def find() -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for path, name in nested_scopes(scope, qualname):
            try:
                hits = match(path)
            except SyntaxError:
                continue
            out.extend((name, line) for line in lines_of(module, [h[-1] for h in hits], offset))
        return sorted(out, key=lambda hit: hit[1])

    return find


def _one_line(code: str) -> str:
    text = " ".join(textwrap.dedent(code).split())
    return text if len(text) <= 60 else text[:57] + "..."


def undo_pick(
    module: cst.Module,
    find_hits: list[Path_],
    with_hits: list[Path_],
    op: Selecting,
    what: str,
    scope: str,
    offset: int,
    undo: cst.CSTNode | None,
    undo_of: Callable[[Path_], cst.CSTNode] | None = None,
    missing: Callable[[], Explanation] | None = None,
) -> Path_:
    """The hit an inverse restores. With `occurrence: n`, forward took the n-th match of `find`;
    in the patched code that is the `with` match preceded by exactly n-1 `find` matches. `within`
    is judged on the code as it was: each hit put back as `undo`, or as `undo_of(hit)` gives it.
    `missing`: why no `with` matches, where the caller can tell more than that it is not there."""
    gone = missing or (lambda: ("the rewrite's result is not there", False))
    if op.within:
        find_hits = [h for h in find_hits if is_within(module, h, op.within, None)]
        with_hits = [h for h in with_hits if is_within(module, h, op.within, undo_of(h) if undo_of else undo)]
        if isinstance(op.occurrence, int) and pick_index() is None:
            hits = [(h, None) for h in find_hits] + [(h, undo_of(h) if undo_of else undo) for h in with_hits]
            _count_in_one(module, hits, op.within, what, scope, offset)
    if op.occurrence is None or op.occurrence == "all" or pick_index() is not None:
        return select(module, with_hits, what, scope, None, offset, gone)
    pos = lines_positions(module, [h[-1] for h in [*find_hits, *with_hits]])
    fpos, wpos = pos[: len(find_hits)], pos[len(find_hits) :]
    chosen = [
        h for h, p in sorted(zip(with_hits, wpos), key=lambda x: x[1]) if sum(q < p for q in fpos) == op.occurrence - 1
    ]
    run = _UNDO_RUN.get()
    if run is not None and len(chosen) > 1 and len(chosen) == run[1]:
        # the same edit at neighbouring occurrences (`occurrence: 1` and `occurrence: 2`, one `with`):
        # their results stand in occurrence order, and nothing else between them reads as the result
        chosen = [chosen[run[0]]]
    return select(module, chosen, what, scope, None, offset, gone)


_UNDO_RUN: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar("radpatch_undo_run", default=None)


@contextlib.contextmanager
def undoing_in_run(index: int, size: int) -> Iterator[None]:
    """While active, an undo whose `occurrence:` result matches `size` times takes the index-th
    (from 0, in source order): rewrite.runner sets it for a rewrite that makes the same edit as
    others still applied at the occurrences next to its own (a run of `size`, it the index-th)."""
    token = _UNDO_RUN.set((index, size))
    try:
        yield
    finally:
        _UNDO_RUN.reset(token)


def lines_positions(module: cst.Module, nodes: Sequence[cst.CSTNode]) -> list[tuple[int, int]]:
    pos = starts(module)
    return [pos[n] for n in nodes]


def function(module: cst.Module, qualname: str, offset: int = 0) -> tuple[Path_, cst.FunctionDef]:
    path = find_scope(module, qualname, offset)
    fn = path[-1]
    if not isinstance(fn, cst.FunctionDef):
        what = "the module" if isinstance(fn, cst.Module) else "a class"
        raise MatchFailure(
            f"{qualname!r} is {what}, not a function", "name a function or method: `f` or `Class.method`"
        )
    return path, fn
