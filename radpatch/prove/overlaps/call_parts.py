"""A literal passed to a call (add_element, remove_element, set_item with `call:`), as the overlap
rules meet it (elem43). Its touches key the literal by the call's argument as picked
(`registry.call_address.literal_key`: `CALLEE(choices=)@WITHIN#N`), so the rules that compare keys
saw nothing of:

- a `find` (replace, delete) holding a call to the callee passing that argument: the statement
  or expression it takes whole holds the literal (`holds`);
- a `set_keyword` of the same keyword of a call to the same callee: the keyword argument it
  changes (or adds, or takes away) is the literal (`keyword_meeting`);
- another call-form rewrite of the same argument of the same callee picked another way
  (`occurrence: 1` and none, another `within:`): the same call unless the picks are plainly apart,
  compared as the same literal would be (`same_call`).

Read from the touches alone (the registry text, or an applied entry's record)."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from radpatch.registry.touch import PLACE, Touch, norm

if TYPE_CHECKING:
    from radpatch.prove.overlaps.touching import Meeting


@dataclass(frozen=True)
class CallPart:
    """The call-form literal a touch changes: its key as picked, the key without the pick, the
    argument (a keyword or `#N`), and the pick (`within:` as written, `occurrence:` as text)."""

    key: str
    base: str
    argument: str
    within: str
    occurrence: str

    @property
    def picked(self) -> bool:
        return self.key != self.base


def _parse(key: str) -> CallPart | None:
    """`CALLEE(ARG=)` + `@WITHIN#N` (call_address.literal_key); None for a name (no `=)` in it)."""
    end = key.find("=)")
    if end < 0:
        return None
    base = key[: end + 2]
    argument = base[base.rfind("(") + 1 : -2]
    pick = key[end + 2 :]
    within, _, nth = pick[1:].rpartition("#") if pick.startswith("@") else ("", "", "")
    return CallPart(key, base, argument, within, nth)


def call_part(t: Touch) -> CallPart | None:
    """The call-form literal `t` changes (an element or entry of it: `part` ("argument", callee,
    key); or the place a new one goes: an `entry place` keyed by it), or None."""
    if len(t.part) >= 3 and t.part[0] == "argument":
        return _parse(t.part[2])
    if t.key.startswith(PLACE) and len(t.part) >= 2:
        return _parse(t.part[1])
    return None


def callee(t: Touch) -> str:
    """The callee an element touch's call names (`part[1]`), as a syntax tree."""
    return norm(t.part[1])


def picked(t: Touch) -> bool:
    """`t` picks one copy of its code, or one call, by `occurrence:`/`within:`."""
    c = call_part(t)
    return t.occurrence is not None or bool(t.within) or (c is not None and c.picked)


def holds(find: str, t: Touch) -> bool:
    """The code `find` matches holds a call to `t`'s callee passing `t`'s argument (the keyword,
    or the N-th positional argument with no `*` argument before it)."""
    tree = tree_of(find)
    return tree is not None and passes([tree], t)


def passes(trees: list[ast.AST], t: Touch) -> bool:
    """One of `trees` holds a call to `t`'s callee passing `t`'s argument (as `holds` says)."""
    c = call_part(t) if t.part and t.part[0] == "argument" else None
    if c is None:
        return False
    want = callee(t)
    for node in (n for tree in trees for n in ast.walk(tree)):
        if not isinstance(node, ast.Call) or ast.dump(node.func) != want:
            continue
        if not c.argument.startswith("#"):
            if any(kw.arg == c.argument for kw in node.keywords):
                return True
            continue
        n = int(c.argument[1:]) if c.argument[1:].isdigit() else 0
        before = node.args[:n]
        if 0 < n <= len(node.args) and not any(isinstance(a, ast.Starred) for a in before):
            return True
    return False


def tree_of(code: str) -> ast.AST | None:
    """`code` parsed: as one expression (in parentheses, so that it may span lines), else as statements."""
    text = textwrap.dedent(code).strip()
    for wrapped, mode in ((f"(\n{text}\n)", "eval"), (text, "exec")):
        try:
            return ast.parse(wrapped, mode=mode)
        except SyntaxError:
            continue
    return None


def keyword_meeting(elem: Touch, kw: Touch) -> bool:
    """`elem` changes a call-form literal passed as a keyword; `kw` (set_keyword: part ("keyword",
    callee, keyword, from)) changes that keyword argument of a call to the same callee, in the
    same scope: the same code (whichever calls each picks, conservatively)."""
    c = call_part(elem) if elem.part and elem.part[0] == "argument" else None
    if c is None or elem.scope != kw.scope or len(kw.part) != 4 or kw.part[0] != "keyword":
        return False
    return c.argument == kw.part[2] and callee(elem) == norm(kw.part[1])


def same_call(a: Touch, b: Touch) -> tuple[Touch, Touch, str] | None:
    """Two touches of the same argument of calls to one callee, picked differently, that may be the
    same call: both keyed as the literal without its pick (to be met as two touches of one literal),
    and why they may be one call (in words). None when they are not, or their picks are plainly
    apart (the same `within:`, different `occurrence:` numbers: a call-form edit changes no call's
    arguments but the literal, so neither renumbers the other's calls)."""
    ca, cb = call_part(a), call_part(b)
    if ca is None or cb is None or ca.key == cb.key or ca.base != cb.base or a.scope != b.scope:
        return None
    if ca.within == cb.within and ca.occurrence.isdigit() and cb.occurrence.isdigit():
        return None  # different numbers (the keys differ), counted alike
    if ca.within != cb.within:
        why = "their `within:` differ, and which calls each encloses depends on the file"
    elif "all" in (ca.occurrence, cb.occurrence):
        why = "`occurrence: all` takes every call"
    else:
        why = "one gives no `occurrence:`, so the file has one such call, the one the other picks"
    return _unpicked(a, ca), _unpicked(b, cb), why


def as_one_call(a: Touch, b: Touch, meet: Callable[[Touch, Touch], Meeting | None]) -> Meeting | None:
    """How `a` and `b` (`same_call`) meet as two rewrites of one literal (`meet`: the rules), saying
    they do if they pick the same call, and why they may."""
    one = same_call(a, b)
    met = None if one is None else meet(one[0], one[1])
    if one is None or met is None:
        return None
    return dataclasses.replace(met, what=f"{met.what}, if they pick the same call: {one[2]}")


def _unpicked(t: Touch, c: CallPart) -> Touch:
    """`t` keyed by its literal without the pick."""

    def plain(s: str) -> str:
        return s.replace(c.key, c.base)

    return dataclasses.replace(t, key=plain(t.key), part=tuple(plain(p) for p in t.part), inside=plain(t.inside))
