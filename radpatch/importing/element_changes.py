"""Elements added to or taken from a set, list or tuple display bound to a name (`__all__ = [...]`,
a set of the fields a hash ignores): said as add_element / remove_element, one per element, instead
of a `replace` of the whole assignment.

Elements are compared by value (their syntax tree); the ones both sides keep must keep their order.
The steps run in this order: the removals, each where the display has it then (`after:` the element
before it, `before:` the one after it when it is the first, nothing when it is the last), then the
additions in the display's new order (`after:` the element before it, `before:` the display's first
when it goes first, nothing when it goes last), so each step names elements the display holds when
it runs."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.statements import key

_DISPLAYS = (ast.Set, ast.List, ast.Tuple)


@dataclass(frozen=True)
class ElementChange:
    """One element added (`remove` False) or taken away, placed by the element it follows (`after`)
    or precedes (`before`); neither for the display's last."""

    element: ast.expr
    remove: bool
    after: ast.expr | None = None
    before: ast.expr | None = None
    commented: bool = False  # an added element the patch writes with a comment the rewrite leaves out


def element_changes(
    b: ast.stmt, a: ast.stmt, lines: Sequence[str] = (), after_lines: Sequence[str] = ()
) -> tuple[str, list[ElementChange]] | str | None:
    """When b and a bind one name to a display of one kind and differ only in its elements: the name
    and the elements added and taken away. A string (why) when the difference is in the elements but
    no add_element/remove_element says it (elements reordered, a `*` element added or taken away, an
    element written twice, a removed element with a comment remove_element's inverse would not put
    back). None when they are not such assignments, or differ elsewhere. `lines`: the before-file's;
    `after_lines`, the after-file's, tell the comments an added element comes with."""
    if type(b) is not type(a) or not isinstance(b, (ast.Assign, ast.AnnAssign)):
        return None
    assert isinstance(a, (ast.Assign, ast.AnnAssign))
    tb = b.targets if isinstance(b, ast.Assign) else [b.target]
    ta = a.targets if isinstance(a, ast.Assign) else [a.target]
    if len(tb) != 1 or not isinstance(tb[0], ast.Name) or [key(t) for t in tb] != [key(t) for t in ta]:
        return None
    if isinstance(b, ast.AnnAssign) and isinstance(a, ast.AnnAssign) and key(b.annotation) != key(a.annotation):
        return None
    found = display_changes(b.value, a.value, lines, after_lines)
    return found if found is None or isinstance(found, str) else (tb[0].id, found)


def display_changes(
    db: ast.expr | None, da: ast.expr | None, lines: Sequence[str] = (), after_lines: Sequence[str] = ()
) -> list[ElementChange] | str | None:
    """The elements added to and taken from the display db to give da (one kind: a set, list or
    tuple), in the steps' order; a string (why) where no add_element/remove_element says it; None
    where they are not such displays or do not differ."""
    if not isinstance(db, _DISPLAYS) or type(db) is not type(da):
        return None
    assert isinstance(da, _DISPLAYS)
    kb, ka = [key(e) for e in db.elts], [key(e) for e in da.elts]
    if len(set(kb)) != len(kb) or len(set(ka)) != len(ka):
        return "an element is written twice (add_element and remove_element name an element by its value)"
    if [k for k in kb if k in ka] != [k for k in ka if k in kb]:
        return "its elements are reordered (add_element and remove_element keep their order)"
    if any(isinstance(e, ast.Starred) for e in (*db.elts, *da.elts) if key(e) not in kb or key(e) not in ka):
        return "a `*` element is added or taken away"
    if isinstance(da, ast.Set) and not da.elts:
        return None  # `{}` is a dict: the set became `set()`, no display
    cur = list(db.elts)
    out: list[ElementChange] = []
    for e in [e for e in db.elts if key(e) not in ka]:
        i = [key(c) for c in cur].index(key(e))
        if _commented(db, e, cur[i - 1] if i else None, cur[i + 1] if i + 1 < len(cur) else None, lines):
            return "a removed element has a comment on or next to its lines (revert could not write it back)"
        out.append(_placed(e, True, cur, i))
        del cur[i]
    for j, e in enumerate(da.elts):
        if key(e) in kb:
            continue
        at = 0 if j == 0 else [key(c) for c in cur].index(key(da.elts[j - 1])) + 1
        change = _placed(e, False, cur, at)
        nxt = da.elts[j + 1] if j + 1 < len(da.elts) else None
        if _commented(da, e, da.elts[j - 1] if j else None, nxt, after_lines):
            change = dataclasses.replace(change, commented=True)
        out.append(change)
        cur.insert(at, e)
    if any(c.after is not None and isinstance(c.after, ast.Starred) for c in out) or any(
        c.before is not None and isinstance(c.before, ast.Starred) for c in out
    ):
        return "an element is added or taken away next to a `*` element (no element's value names that place)"
    return out or None


def _placed(e: ast.expr, remove: bool, cur: list[ast.expr], i: int) -> ElementChange:
    """The change of `e` at index i of the display `cur` holds (where it is, or where it goes)."""
    last = i == len(cur) - (1 if remove else 0)
    if last:
        return ElementChange(e, remove)
    if i:
        return ElementChange(e, remove, after=cur[i - 1])
    return ElementChange(e, remove, before=cur[1] if remove else cur[0])


def element_steps(
    scope: str,
    name: str,
    changes: list[ElementChange],
    text: Callable[[ast.AST], str | None],
    call: Sequence[tuple[str, Value]] = (),
) -> list[ImportStep] | None:
    """The add_element / remove_element steps of `changes`, each node's code given by `text` (None
    where one has none). With `call` (its `call:`, `keyword:` or `argument:`, `occurrence:`), the
    display is that call's argument, not `name`'s."""
    steps: list[ImportStep] = []
    for c in changes:
        address = [(k, v) for k, v in call if k != "occurrence"] if call else [("name", name)]
        keys: list[tuple[str, Value]] = [("scope", scope), *address]
        for field, node in (("element", c.element), ("after", c.after), ("before", c.before)):
            if node is None:
                continue
            code = text(node)
            if code is None:
                return None
            keys.append((field, code))
        keys += [(k, v) for k, v in call if k == "occurrence"]
        steps.append(ImportStep("remove_element" if c.remove else "add_element", tuple(keys)))
    return steps


def _commented(d: ast.expr, e: ast.expr, prev: ast.expr | None, nxt: ast.expr | None, lines: Sequence[str]) -> bool:
    """Whether the element `e` of the display `d` (between `prev` and `nxt`, as the removals before
    leave it) has a comment the inverse would not put back where it was: on its own lines, on lines
    right above it, or (the display's first) on lines right above the next element."""
    start = (prev.end_lineno or 0) + 1 if prev is not None else d.lineno + 1
    end = e.end_lineno or e.lineno
    if prev is None and nxt is not None:
        end = max(end, nxt.lineno - 1)
    for row in range(start, end + 1):
        if not 0 < row <= len(lines) or row == e.end_lineno == d.end_lineno:
            continue  # the display's own last line: its comment is the statement's, not the element's
        text = lines[row - 1]
        if "#" in (text[e.end_col_offset or 0 :] if row == e.end_lineno else text):
            return True
    return False
