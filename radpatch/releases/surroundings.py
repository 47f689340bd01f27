"""Whether a rewrite changes the same code on a release as on the release the entry is proven on
(verify's `match` check, radpatch.releases.proof): a `find` (or a call, an `occurrence:`) that still
matches once may match other code, when upstream added a copy of it or rewrote the statement it matched.

The rule, GNU `patch`'s context read on statements: each edit a rewrite that picks code by a pattern
(an operation with `occurrence:`) makes is placed by the statements that enclose it (their headers,
outermost first), the statements it changes (or, for an insertion, where its new statements stand) and
the sibling statement just before and just after them in their block (or the block's start or end).
On both releases these must be the same, compared as code (formatting and comments do not count; as
context lines see them: a compound statement changed or after the edit by its header, one before it by
its last line; after a block's end, the next line below it, but no context past a definition's end), and
found once in the release (GNU patch would take another place with the same context). Like patch's
default fuzz (2 of 3 context lines may differ), only the nearest sibling on each side counts: an edit two
statements away still passes. What the edit leaves of the statements it changes must be the same too
(a match taken elsewhere in the same statement is other code). Statements changed that are found once
in their enclosing statements on both releases need no sibling (no copy to mistake them for: upstream
may change their neighbours); an insert_after/insert_before whose `find` statement is found once with
its surroundings needs only the sibling its `find` names (ANCHORS).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from radpatch import source_lines

if TYPE_CHECKING:
    from radpatch.rewrite.runner import Trace

START, END, DEF_END = "(the block's start)", "(the module's end)", "(the definition's end)"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# insert_after/insert_before (their `side:`): the neighbour their `find` names (the other is upstream's to change)
ANCHORS = {"after": "before", "before": "after"}
_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


@dataclass(frozen=True)
class Place:
    """Where one edit is, as code: the enclosing headers, the statements changed (or inserted), the siblings."""

    chain: tuple[str, ...]
    touched: tuple[str, ...]
    before: str
    after: str
    line: int  # in the text it was read from (the old text; the new one for an insertion)
    inserted: bool = False
    result: tuple[str, ...] = ()  # a change's statements as the edit leaves them (which match in them it took)

    def key(self) -> tuple[tuple[str, ...], tuple[str, ...], str, str, bool, tuple[str, ...]]:
        return self.chain, self.touched, self.before, self.after, self.inserted, self.result

    def describe(self) -> str:
        what = "inserts" if self.inserted else "changes"
        code = _one(self.touched[0]) if self.touched else "comments"
        if self.result and not self.inserted:
            code += f"` into `{_one(self.result[0])}"
        where = f" in {' > '.join(_one(c) for c in self.chain)}" if self.chain else " at module level"
        return f"{what} `{code}`{where}, after `{_one(self.before)}`, before `{_one(self.after)}`"


def pattern_picked(op: object) -> bool:
    """The operation picks its code by a pattern (it takes `occurrence:`): it may pick other code elsewhere."""
    return hasattr(op, "occurrence")


def places(before: str, after: str) -> list[Place] | None:
    """Each edit `before` -> `after` makes, placed; None when either does not parse."""
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    a, b = source_lines.split(before), source_lines.split(after)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left = _place(new.body, j1 + 1, j2, (), True).touched if j2 > j1 else ()
            out.append(dataclasses.replace(_place(old.body, i1 + 1, i2, (), False), result=left))
        else:
            out.append(_place(new.body, j1 + 1, j2, (), True))
    return out


def _first(st: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(st, "decorator_list", [])
    return min([st.lineno, *(d.lineno for d in decorators)])


def _end(st: ast.stmt) -> int:
    return st.end_lineno or st.lineno


def _place(body: list[ast.stmt], s: int, e: int, chain: tuple[str, ...], inserted: bool, last: str = END) -> Place:
    """`last`: the code after the block's end (the next line below it: a dedented statement, or `else:`)."""
    over = [st for st in body if _first(st) <= e and _end(st) >= s]
    if len(over) == 1:
        inner = blocks(over[0])
        for i, (label, block) in enumerate(inner):
            if _first(block[0]) <= s and e <= _end(block[-1]):
                return _place(block, s, e, (*chain, label), inserted, _after(body, over[0], inner, i, last))
    if over:
        k0, k1 = body.index(over[0]), body.index(over[-1])
    else:  # only comments or blank lines: placed between the statements around them
        k0 = k1 = sum(1 for st in body if _end(st) < s)
        k1 -= 1
    prev = _tail(body[k0 - 1]) if k0 > 0 else START
    nxt = code(body[k1 + 1], head=True) if k1 + 1 < len(body) else last
    return Place(chain, tuple(code(st, head=True) for st in over), prev, nxt, s, inserted)


def _after(body: list[ast.stmt], st: ast.stmt, inner: list[tuple[str, list[ast.stmt]]], i: int, last: str) -> str:
    """The code below block `i` of `st` (of `body`): the next block's header, the next statement, or `last`."""
    if i + 1 < len(inner):
        return inner[i + 1][0]
    if isinstance(st, _DEFS):  # blank lines end a definition: what follows it is no context of its body
        return DEF_END
    k = body.index(st)
    return code(body[k + 1], head=True) if k + 1 < len(body) else last


def blocks(node: ast.stmt) -> list[tuple[str, list[ast.stmt]]]:
    """The statement's blocks, each named by the header it hangs from (a definition by its name only)."""
    head = code(node, head=True)
    if isinstance(node, _DEFS):
        head = f"{'class' if isinstance(node, ast.ClassDef) else 'def'} {node.name}"
    out: list[tuple[str, list[ast.stmt]]] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            out.append((head if name == "body" else f"{head} ({name})", block))
    for h in getattr(node, "handlers", None) or []:
        out.append((f"{head} (except {ast.unparse(h.type) if h.type else ''})", h.body))
    for c in getattr(node, "cases", None) or []:
        out.append((f"{head} (case {ast.unparse(c.pattern)})", c.body))
    return sorted(out, key=lambda b: _first(b[1][0]))  # as they stand in the text


def _tail(st: ast.stmt) -> str:
    """A statement as the code just after it sees it: a compound one by its last line's statement."""
    inner = blocks(st)
    return _tail(inner[-1][1][-1]) if inner else code(st)


def code(st: ast.stmt, head: bool = False) -> str:
    """The statement as code; `head`: a compound statement by its header only."""
    if head and any(getattr(st, f, None) for f in _FIELDS):
        st = copy.copy(st)
        for f in _FIELDS:
            if hasattr(st, f):
                setattr(st, f, [])
    try:
        return ast.unparse(st)
    except (ValueError, RecursionError, AttributeError):
        return ast.dump(st)


def found(text: str, place: Place, any_block: bool = False, sides: str = "both") -> list[int] | None:
    """The lines of `text` where code has `place`'s surroundings (`any_block`: in any block, not only in
    the one its enclosing statements name; `sides`: "before" or "after" checks that neighbour only, "none"
    neither);
    None when `text` does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: list[int] = []
    todo: list[tuple[list[ast.stmt], tuple[str, ...], str]] = [(tree.body, (), END)]
    while todo:
        body, chain, last = todo.pop(0)
        for st in body:
            inner = blocks(st)
            todo += [(b, (*chain, lb), _after(body, st, inner, i, last)) for i, (lb, b) in enumerate(inner)]
        if chain != place.chain and not any_block:
            continue
        heads = [code(st, head=True) for st in body]
        n = 0 if place.inserted else len(place.touched)
        for k in range(len(body) - n + 1):
            if tuple(heads[k : k + n]) != (() if place.inserted else place.touched):
                continue
            prev = _tail(body[k - 1]) if k > 0 else START
            nxt = heads[k + n] if k + n < len(body) else last
            if (sides in ("after", "none") or prev == place.before) and (
                sides in ("before", "none") or nxt == place.after
            ):
                out.append(_first(body[k]) if k < len(body) else _end(body[-1]) + 1)
    return sorted(set(out))  # the end of a block and the place after it are one line


@dataclass(frozen=True)
class Mismatch:
    rewrite: str
    theirs: Place  # on the release the entry is proven on
    ours: Place | None  # here (None: the rewrite makes a different number of edits here)
    now: tuple[int, ...]  # the lines here whose surroundings are those of `theirs` (in any block)

    def describe(self, release: object) -> str:
        if self.ours is not None and self.ours.key() == self.theirs.key():
            lines = ", ".join(map(str, self.now))
            return (
                f"rewrite {self.rewrite!r}: the match is not the only code with {release}'s surroundings "
                f"(lines {lines}): on {release} it {self.theirs.describe()}"
            )
        here = self.ours.describe() if self.ours else "makes other edits"
        near = (
            f"line {self.now[0]} has {release}'s surroundings" if self.now else f"no code has {release}'s surroundings"
        )
        return (
            f"rewrite {self.rewrite!r}: the match is now other code: on {release} it {self.theirs.describe()}; "
            f"here it {here}; nearest candidate: {near}"
        )


def compare(theirs: Trace, ours: Trace) -> Mismatch | None:
    """The first rewrite that picks code by a pattern whose edits here are not placed as on the other release."""
    mine = {rw.id: (rw, b, a) for rw, b, a in ours}
    for rw, before, after in theirs:
        got = mine.get(rw.id)
        if got is None or got[0].op != rw.op or not pattern_picked(rw.op):
            continue  # not run here, or a `versions:` variant written for this release
        want, have = places(before, after), places(got[1], got[2])
        if want is None or have is None:
            continue
        side = getattr(rw.op, "side", "") if getattr(rw.op, "KEY", "") == "insert_after" else ""
        anchor = ANCHORS.get(side, "both")
        for k, place in enumerate(want):
            other = have[k] if len(have) == len(want) else None
            now = tuple(found(got[1], place, any_block=True) or ())
            if other is not None and other.key() == place.key() and len(now) <= 1:
                continue
            if other is not None and place.inserted and anchor != "both" and _anchored(place, other, anchor, got[1]):
                continue
            if other is not None and not place.inserted and _alone(place, other, before, got[1]):
                continue
            return Mismatch(rw.id, place, other, now)
    return None


def _anchored(place: Place, other: Place, side: str, text: str) -> bool:
    """An insertion next to the statement its `find` names: the same there, on the same side, and that
    statement once with those surroundings in the release (the neighbour on the other side may differ)."""
    same = place.chain == other.chain and place.touched == other.touched and place.result == other.result
    if not same or getattr(place, side) != getattr(other, side):
        return False
    return len(found(text, place, any_block=True, sides=side) or ()) == 1


def _alone(place: Place, other: Place, theirs: str, ours: str) -> bool:
    """The statements changed, in their enclosing statements, are the same and found there once on both
    releases: the same code whatever its neighbours (upstream may change them; no copy to mistake it for)."""
    if place.chain != other.chain or place.touched != other.touched or place.result != other.result:
        return False
    return all(len(found(text, place, sides="none") or ()) == 1 for text in (theirs, ours))


def _one(text: str, most: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 3] + "..."
