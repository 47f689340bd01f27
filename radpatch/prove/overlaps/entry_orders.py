"""Two entries judged whole, on a file (ovl45, issue 23 item 4): the rules of prove.overlaps.pairs compare
rewrite with rewrite, so two entries whose rewrites meet only together (A's second rewrite finds what
B's first writes, B's second what A's first leaves) passed. Here each entry's rewrites of one module
run whole, by radpatch's own runner (rewrite.runner.forward), A then B and B then A, on the module's
text before either (verify's cached release for `list` and `verify`, the installed file for `apply`):

- both orders write the same code: no overlap;
- they write different code, or neither order applies both although each applies alone: `ORDERS`,
  refused by apply unless `requires:` orders them;
- one order applies and the other fails: a stack (`STACKS`, the one that must run first named first),
  reported, as a `find` in code another writes is.

Two whose rewrites radpatch places after the imports itself (`add_import`, `set_constant` of a new
name: no anchor an author chose) and that each only add module-level bindings the other leaves alone
(prove.overlaps.commute) agree, though their bytes differ; an insertion anchored on the last import
keeps the byte rule. Asked by prove.overlaps.pairs for two entries its rewrite-by-rewrite rules
found apart in a module, unless `requires:` orders them (a series is applied as written: its entries
are not run again pair by pair), and by prove.overlaps.order_matters for every overlap those rules
find (`judge`: the one decision of `list`, `verify` and `apply`); the applied entry known only from
its record: prove.overlaps.recorded_orders."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from enum import Enum

from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.prove.overlaps import commute, gaps
from radpatch.prove.overlaps.gaps import Texts
from radpatch.registry.model import Patch, Rewrite


class Orders(Enum):
    AGREE = "agree"
    DIFFER = "differ"  # both orders apply, and write different code
    NEITHER = "neither"  # each applies alone, neither order applies both
    FIRST = "first"  # only the first entry, then the second, applies: the second stacks on the first
    SECOND = "second"  # only the second, then the first


@functools.lru_cache(maxsize=512)
def run(p: Patch, rws: tuple[Rewrite, ...], text: str | None) -> str | None:
    """`p`'s rewrites `rws` on `text` as apply runs them: the text written, or None when they fail."""
    from radpatch.rewrite import runner
    from radpatch.rewrite.matching import MatchFailure

    if text is None:
        return None
    try:
        return runner.forward(p, rws, text.encode("utf-8"), "module.py").decode("utf-8")
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError, RecursionError):
        return None


@functools.lru_cache(maxsize=256)
def judge(a: Patch, ra: tuple[Rewrite, ...], b: Patch, rb: tuple[Rewrite, ...], text: str) -> Orders | None:
    """How `a`'s rewrites `ra` and `b`'s `rb` meet on `text`; None when there is no pair to judge
    (neither order applies, and one of them fails alone: the file is not one both change)."""
    alone_a, alone_b = run(a, ra, text), run(b, rb, text)
    one, two = run(b, rb, alone_a), run(a, ra, alone_b)
    if one is None and two is None:
        return Orders.NEITHER if alone_a is not None and alone_b is not None else None
    if one is None or two is None:
        return Orders.FIRST if two is None else Orders.SECOND
    if same_code(one, two):
        return Orders.AGREE
    placed = all(gaps.at_imports(rw.op) for rw in (*ra, *rb))  # radpatch places them all, after the imports
    if placed and alone_a is not None and alone_b is not None and commute.independent(text, alone_a, alone_b):
        return Orders.AGREE  # each adds only bindings of names the other leaves alone
    return Orders.DIFFER


def same_code(one: str, two: str) -> bool:
    try:
        return ast.dump(ast.parse(one)) == ast.dump(ast.parse(two))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return one == two


def words(verdict: Orders, first: str, second: str) -> str:
    """What the two entries do together, in words (after "both")."""
    if verdict is Orders.DIFFER:
        return "change the same code, run whole (applied entry by entry, the two orders write different code)"
    if verdict is Orders.NEITHER:
        return "change the same code, run whole (each applies alone, neither order applies both)"
    return f"change the same code, run whole ({second} applies only after {first}: it stacks on what {first} writes)"


def between(
    a: Patch, b: Patch, probe: list[Version], texts: Texts, apart: Callable[[str], bool]
) -> dict[tuple[str, Orders], tuple[tuple[Rewrite, ...], tuple[Rewrite, ...], list[Version]]]:
    """(module, verdict) -> (a's rewrites there, b's, the releases) for each module both change
    where the two entries, run whole on the file, do not agree; `apart(module)`: the rewrite-by-rewrite
    rules found the two apart there (only those modules are judged here)."""
    from radpatch.prove.overlaps.gap_pairs import module_of, text_of

    out: dict[tuple[str, Orders], tuple[tuple[Rewrite, ...], tuple[Rewrite, ...], list[Version]]] = {}
    for v in probe:
        mine: dict[str, list[Rewrite]] = {}
        theirs: dict[str, list[Rewrite]] = {}
        for p, into in ((a, mine), (b, theirs)):
            for rw in p.rewrites_for(v):
                m = module_of(p, rw, v)
                if m is not None:
                    into.setdefault(m, []).append(rw)
        for m in mine.keys() & theirs.keys():
            if not apart(m):
                continue
            ra, rb = tuple(mine[m]), tuple(theirs[m])
            text = text_of(a, ra[0], b, v, texts)
            verdict = None if text is None else judge(a, ra, b, rb, text)
            if verdict is None or verdict is Orders.AGREE:
                continue
            out.setdefault((m, verdict), (ra, rb, []))[2].append(v)
    return out
